"""End to end: TMA copies (copy_async variant `tma`, docs/tma.md) compiled for sm_90a, assembled by ptxas,
run on tile-sim through the runtime (jit(backend="sim"): the Artifact's tensor maps become tile-sim
TensorMaps over the arrays given for their buffers). The expectation is numpy indexing of the logical
region, nothing else: a load read back by tile.copy (ld.shared through the shared buffer's layout, whose
swizzle the layout algebra applies) checks the bytes TMA put in shared memory against our layouts, zeros
past the tensor's edge included; a load stored back by TMA checks both directions."""

import os
import sys

import ml_dtypes
import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench"))

import tile_mlir  # noqa: E402
from e2e_kernels import find_ptxas, ptxas  # noqa: E402
from kernels import tma_kernel  # noqa: E402
from tile_mlir.artifact import Artifact  # noqa: E402

PTXAS = find_ptxas()
NUMPY = {"ui8": np.uint8, "bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32, "i32": np.int32,
         "f64": np.float64}
BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}

# (id, elem, tensor shape, box, box offset, swizzle, readback)
CASES = [
    ("ui8_noswz", "ui8", (32, 64), (16, 32), (8, 16), None, "copy"),
    ("ui8_32B", "ui8", (64, 96), (32, 32), (16, 64), "32B", "copy"),
    ("ui8_64B", "ui8", (64, 128), (16, 64), (48, 64), "64B", "copy"),
    ("ui8_128B", "ui8", (64, 256), (32, 128), (16, 128), "128B", "copy"),
    ("bf16_32B", "bf16", (32, 64), (16, 16), (8, 48), "32B", "copy"),
    ("bf16_64B", "bf16", (32, 64), (16, 32), (16, 32), "64B", "copy"),
    ("bf16_128B", "bf16", (64, 128), (32, 64), (32, 64), "128B", "copy"),
    ("f32_noswz", "f32", (16, 64), (8, 8), (4, 16), None, "copy"),
    ("f32_128B", "f32", (64, 64), (16, 32), (48, 32), "128B", "copy"),
    ("f64_64B", "f64", (16, 16), (8, 8), (8, 8), "64B", "copy"),
    # inner rows narrower than the swizzle span: one span apart (H200: docs/tma.md §6)
    ("ui8_rows16_128B", "ui8", (32, 64), (8, 16), (8, 48), "128B", "copy"),
    ("bf16_rows32_64B", "bf16", (32, 64), (16, 16), (0, 16), "64B", "copy"),
    # 3D to 5D boxes
    ("f32_3d_64B", "f32", (4, 16, 32), (2, 8, 16), (2, 8, 16), "64B", "copy"),
    ("i32_4d_noswz", "i32", (3, 4, 8, 16), (2, 2, 4, 8), (1, 2, 4, 8), None, "copy"),
    ("ui8_5d_32B", "ui8", (2, 3, 4, 8, 32), (1, 2, 2, 4, 32), (1, 1, 2, 4, 0), "32B", "copy"),
    # boxes past the tensor's edge: TMA fills zeros (outer dim, inner dim, both)
    ("ui8_edge_rows", "ui8", (100, 64), (64, 64), (64, 0), None, "copy"),
    ("bf16_edge_cols_128B", "bf16", (32, 72), (16, 64), (8, 64), "128B", "copy"),
    ("f32_edge_both_64B", "f32", (20, 40), (16, 16), (16, 32), "64B", "copy"),
    # TMA store back (bulk group, wait_group)
    ("bf16_roundtrip_128B", "bf16", (64, 128), (32, 64), (32, 64), "128B", "tma"),
    ("f16_roundtrip_3d_32B", "f16", (4, 8, 64), (2, 4, 16), (2, 4, 32), "32B", "tma"),
    ("ui8_roundtrip_noswz", "ui8", (64, 64), (32, 16), (16, 48), None, "tma"),
]


def _run(text, elem, shape, rng, *, art=None):
    art = art or tile_mlir.compile(text, arch="sm_90a")
    if PTXAS:
        ptxas(art.ptx, PTXAS, "sm_90a")
    dt = NUMPY[elem]
    raw = BITS[np.dtype(dt).itemsize]
    A = rng.integers(1, np.iinfo(raw).max, size=shape, dtype=raw).view(dt)
    out = np.zeros(art.params[1].shape, dt)
    res = tile_mlir.jit(art, backend="sim")(A, out)
    assert res.backend == "sim"
    return art, A.view(raw), out.view(raw)


def _box_of(A, offset, box):
    """The box at offset as TMA delivers it: the tensor's elements, zeros past its edge."""
    got = A[tuple(slice(o, o + b) for o, b in zip(offset, box))]
    exp = np.zeros(box, A.dtype)
    exp[tuple(slice(0, n) for n in got.shape)] = got
    return exp


@pytest.mark.parametrize("name, elem, shape, box, offset, swizzle, readback", CASES, ids=[c[0] for c in CASES])
def test_tma_on_tile_sim(name, elem, shape, box, offset, swizzle, readback):
    text = tma_kernel(name, elem=elem, shape=shape, box=box, offset=offset, swizzle=swizzle, readback=readback)
    art, A, out = _run(text, elem, shape, np.random.default_rng(len(name)))
    assert "cp.async.bulk.tensor" in art.ptx and len(art.tensor_maps) == (2 if readback == "tma" else 1)
    if readback == "copy":
        np.testing.assert_array_equal(out, _box_of(A, offset, box))
    else:
        exp = np.zeros_like(A)
        region = tuple(slice(o, o + b) for o, b in zip(offset, box))
        exp[region] = A[region]
        np.testing.assert_array_equal(out, exp)


def test_multicast_to_both_ctas_of_a_cluster():
    text = tma_kernel("tma_multicast", elem="ui8", shape=(64, 64), box=(32, 32), offset=(16, 32), swizzle="64B",
                      readback="copy", multicast=True)
    art, A, out = _run(text, "ui8", (64, 64), np.random.default_rng(7))
    assert ".multicast::cluster" in art.ptx
    box = _box_of(A, (16, 32), (32, 32))
    np.testing.assert_array_equal(out, np.concatenate([box, box]))


def test_the_tensor_maps_travel_with_a_saved_artifact(tmp_path):
    text = tma_kernel("tma_saved", elem="bf16", shape=(64, 128), box=(32, 64), offset=(0, 64), swizzle="128B")
    art = Artifact.load(tile_mlir.compile(text, arch="sm_90a").save(tmp_path))
    assert [(tm.buffer, tm.swizzle, tm.box_dim, tm.global_strides) for tm in art.tensor_maps] == \
        [("A", "128b", (64, 32), (256,)), ("out", "128b", (64, 32), (256,))]
    _, A, out = _run(None, "bf16", (64, 128), np.random.default_rng(1), art=art)
    np.testing.assert_array_equal(out[0:32, 64:128], A[0:32, 64:128])


@pytest.mark.parametrize("seed", range(6))
def test_fuzz_family_cases(seed):
    """A few draws of the bench/fuzz.py family (tma_fuzz.py): valid ones match numpy on tile-sim, invalid
    ones are rejected by the check the family names."""
    import tma_fuzz
    from cp_fuzz import RngChooser
    from tile_mlir.diagnostics import TileError

    ch = RngChooser(np.random.default_rng([2026, seed]))
    invalid = tma_fuzz.INVALID_KINDS[seed % 5] if seed % 2 else None
    case = tma_fuzz.random_case(ch, invalid, seed)
    if invalid is None:
        assert tma_fuzz.run_case(case, seed=seed, ptxas_exe=PTXAS).mismatches() == [], case
        return
    with pytest.raises(TileError) as e:
        tma_fuzz.run_case(case, seed=seed, ptxas_exe=None)
    assert tma_fuzz.CHECK_RE.search(str(e.value)).group(1) == tma_fuzz.INVALID_CHECK[invalid], case
