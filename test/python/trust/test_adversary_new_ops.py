"""Hostile inputs to the day's new surfaces that once crashed, wrapped or were accepted wrongly (the
adversary's finds); the IR-side ones are lit cases (test/Dialect/tile/adversary-*-invalid.mlir,
test/Target/PTX/register-budget.mlir, large-offsets.mlir). Each test names what went wrong before."""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import tile_mlir
from tile_mlir.artifact import Artifact
from tile_mlir.errors import ArgumentError
from tile_mlir.lowering.copy_async.tcgen05_ldst_plan import instruction_registers
from tile_mlir.sim import TensorMap
from tile_mlir.sim.errors import EmulationError
from tile_mlir.target import register_budget

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench"))
from kernels import tma_kernel  # noqa: E402


@pytest.mark.parametrize("threads, budget", [(1, 255), (128, 255), (256, 255), (384, 168), (416, 128),
                                             (512, 128), (640, 96), (768, 80), (896, 72), (1024, 64)])
def test_register_budget_is_what_ptxas_names(threads, budget):
    """ptxas 13.4's C7602 message named 128 (416..512 threads), 96 (640) and 72 (896); the rest follow
    from the same rule (four sub-partitions of 16K registers, units of 8, at most 255)."""
    assert register_budget(threads) == budget


def test_tcgen05_ld_width_leaves_ptxas_room():
    """Block 128x7 made an x128 load that ptxas refused (it asks for 146 registers, the CTA gives 72)."""
    assert [instruction_registers(t) for t in (128, 384, 512, 640, 896, 1024)] == [128, 128, 64, 64, 32, 32]


def test_emitter_refuses_a_constant_that_would_wrap():
    """A 2^34-byte offset as an i32 constant became -64 (a read before the tensor); now it cannot be made."""
    from tile_mlir.lowering.emitter import I32, I64, Emitter
    from tile_mlir.mlir import ir

    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        em = Emitter(ir.InsertionPoint(module.body), ir.Location.unknown())
        em.i64(1 << 34)
        em.i32(0xFFFFFFFF)  # (an unsigned pattern still fits 32 bits)
        with pytest.raises(ValueError, match="does not fit"):
            em.const(1 << 34, I32())
        with pytest.raises(ValueError, match="does not fit"):
            em.const(1 << 64, I64())


@pytest.fixture(scope="module")
def tma_artifact(tmp_path_factory):
    text = tma_kernel("tma_hostile", elem="ui8", shape=(64, 64), box=(32, 32), offset=(16, 32), swizzle="64B",
                      readback="copy")
    return tile_mlir.compile(text, arch="sm_90a").save(tmp_path_factory.mktemp("tma"))


def _load_with(path, **fields):
    d = json.load(open(path))
    d["tensor_maps"][0].update(fields)
    crafted = path.replace(".json", "_crafted.json")
    for ext in (".ptx", ".cubin"):
        with open(path.replace(".json", ext), "rb") as f, open(crafted.replace(".json", ext), "wb") as g:
            g.write(f.read())
    json.dump(d, open(crafted, "w"))
    return Artifact.load(crafted)


def test_a_manifest_map_past_its_buffer_is_refused(tma_artifact):
    """A crafted manifest's map of 100000 rows over a 64x64 buffer ran: on a GPU TMA would have read (or
    stored into) whatever memory follows the array."""
    # refused when the manifest is loaded (manifest.py: each map against its buffer parameter's shape),
    # before anything could launch it
    with pytest.raises(ArgumentError, match=r"global_dim \(64, 100000\) is not the buffer's shape \(64, 64\)"):
        _load_with(tma_artifact, global_dim=[64, 100000])


@pytest.mark.parametrize("fields, message", [
    ({"buffer": "../../etc/passwd"}, "buffer must name a parameter"),
    ({"buffer": "nope"}, "not a buffer parameter"),
    ({"global_strides": [True]}, "global_strides must be 1 ints"),
    ({"global_dim": "64"}, "must be a list"),
])
def test_crafted_map_fields_are_refused_at_load(tma_artifact, fields, message):
    with pytest.raises(ArgumentError, match=message):
        _load_with(tma_artifact, **fields)


@pytest.mark.parametrize("field, value", [("global_dim", "64"), ("global_dim", ("64", "64")),
                                          ("box_dim", (32.0, 32)), ("global_strides", (True,))])
def test_tile_sim_tensor_map_takes_integers_only(field, value):
    """The string "64" passed as globalDim (6, 4), and ("64", "64") as (64, 64)."""
    kw = dict(data_type="uint8", global_address=np.zeros((64, 64), np.uint8), global_dim=(64, 64),
              global_strides=(64,), box_dim=(32, 32), element_strides=(1, 1))
    kw[field] = value
    with pytest.raises(EmulationError, match="must be a sequence of integers"):
        TensorMap(**kw)
