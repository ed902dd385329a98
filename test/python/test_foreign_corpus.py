"""NVIDIA's CuTe DSL kernels (test/fixtures/foreign, bench/foreign/make_corpus.py) run as shipped on
tile-sim and match their numpy references bit for bit; the ISA rules they break are findings in
the default (lenient) mode and errors in strict mode; our own kernels run strict."""

import json
import os
import re
import sys

import numpy as np
import pytest

from tile_mlir.sim import EmulationError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "test", "fixtures", "foreign")
sys.path.insert(0, os.path.join(ROOT, "bench", "foreign"))
import corpus  # noqa: E402

NAMES = corpus.names(FIX)


def ld_lines(ptx):
    return [i for i, l in enumerate(ptx.split("\n"), 1) if "tcgen05.ld." in l]


def test_corpus_is_complete_and_its_contracts_are_recorded():
    assert {"bw_dense_1cta", "bw_dense_2cta", "bw_persistent", "hopper_dense",
            "hopper_dense_f16", "tma_transpose", "triton_dot"} <= set(NAMES)
    for name in NAMES:
        man = json.load(open(os.path.join(FIX, f"{name}.json")))
        maps = [p for p in man["params"] if p["kind"] == "tensor_map"]
        assert len(maps) == len(man["descriptor_words"]) and (maps or name == "triton_dot")
        for p in maps:
            assert {"data_type", "rank", "global_dim", "global_strides", "box_dim",
                    "element_strides", "interleave", "swizzle", "l2_promotion",
                    "oob_fill"} <= set(p)
        assert man["dynamic_smem"] > 0 and len(man["grid"]) == len(man["cluster"]) == 3
        ptx = open(os.path.join(FIX, f"{name}.ptx")).read()
        assert f".target {man['arch']}" in ptx and man["kernel"] in ptx


@pytest.mark.parametrize("name", NAMES)
def test_runs_as_shipped_and_matches(name):
    outs, refs, res = corpus.run(FIX, name)  # run_ptx's default: lenient
    for n, ref in refs.items():
        np.testing.assert_array_equal(outs[n].view(np.uint8), ref.view(np.uint8))
    ptx = open(os.path.join(FIX, f"{name}.ptx")).read()
    found = {(f.rule, f.line) for f in res.findings}
    if ".target sm_90a" in ptx:
        assert found == set()  # the Hopper kernels keep every rule tile-sim checks
    elif name == "triton_dot":  # waits for its tcgen05.ld, but commits to a .shared::cta offset
        commit = [i for i, l in enumerate(ptx.split("\n"), 1) if "tcgen05.commit" in l]
        assert "tcgen05.wait::ld" in ptx and "tcgen05.fence::after_thread_sync" not in ptx
        assert found == {("generic-address", commit[0]),
                         ("tcgen05.fence::after_thread_sync", ld_lines(ptx)[0])}
        assert all(f.source and re.search(r"triton_dot\.py:32:\d+$", f.source) for f in res.findings)
    else:  # no fence between the commit's mbarrier wait and tcgen05.ld, and no tcgen05.wait::ld
        assert "tcgen05.fence::after_thread_sync" not in ptx and "tcgen05.wait::ld" not in ptx
        want = {(r, L) for L in ld_lines(ptx)
                for r in ("tcgen05.fence::after_thread_sync", "tcgen05.wait::ld")}
        assert found == want
        assert all(re.match(r"tile-sim finding: line \d+: \[tcgen05\.", str(f))
                   for f in res.findings)


@pytest.mark.parametrize("name", ["bw_dense_1cta", "bw_persistent"])
def test_fenceless_kernel_fails_strict(name):
    ptx = open(os.path.join(FIX, f"{name}.ptx")).read()
    with pytest.raises(EmulationError, match=r"fence::after_thread_sync.*ISA rule") as e:
        corpus.run(FIX, name, strict=True)
    assert e.value.line in ld_lines(ptx)


def test_our_kernels_run_strict():
    import tile_mlir
    from tile_mlir.runtime.emulator import SimBackend
    art = tile_mlir.compile(open(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "demo.mlir")).read(),
                            emit=("ptx",))
    assert SimBackend(art, None).options["strict"] is True  # jit()'s sim backend, unless strict=False
    assert SimBackend(art, None, options={"strict": False}).options["strict"] is False
    assert os.environ.get("TILE_MLIR_SIM_STRICT") == "1"  # test/python/conftest.py
