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

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FIX = os.path.join(ROOT, "test", "fixtures", "foreign")
sys.path.insert(0, os.path.join(ROOT, "bench", "foreign"))
import corpus  # noqa: E402

NAMES = corpus.names(FIX)


def ld_lines(ptx):
    return [i for i, l in enumerate(ptx.split("\n"), 1) if "tcgen05.ld." in l]


def test_corpus_is_complete_and_its_contracts_are_recorded():
    assert {"bw_dense_1cta", "bw_dense_2cta", "bw_persistent", "bw_blockscaled_mxf8",
            "bw_blockscaled_nvf4", "hopper_dense", "hopper_dense_f16", "tma_transpose",
            "triton_dot"} <= set(NAMES)
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


@pytest.mark.slow  # the CuTe DSL corpus on tile-sim
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
        # exactly: per warp that executes a tcgen05.ld, one fence finding; per lane and
        # destination register of it (its .xN), one read before the wait
        lines = ptx.split("\n")
        count = {(f.rule, f.line): f.count for f in res.findings}
        for L in ld_lines(ptx):
            n = int(re.search(r"\.32x32b\.x(\d+)\.", lines[L - 1]).group(1))
            assert count[("tcgen05.wait::ld", L)] == 32 * n * count[
                ("tcgen05.fence::after_thread_sync", L)]
        assert all(re.match(r"tile-sim finding: line \d+: \[tcgen05\.", str(f))
                   for f in res.findings)


@pytest.mark.parametrize("name", ["bw_dense_1cta", "bw_dense_2cta", "bw_persistent",
                                  "bw_blockscaled_mxf8", "bw_blockscaled_nvf4"])
def test_fenceless_kernel_fails_strict(name):
    ptx = open(os.path.join(FIX, f"{name}.ptx")).read()
    with pytest.raises(EmulationError, match=r"fence::after_thread_sync.*ISA rule") as e:
        corpus.run(FIX, name, strict=True)
    assert e.value.line in ld_lines(ptx)


def test_our_kernels_run_strict():
    import tile_mlir
    from tile_mlir.runtime.emulator import SimBackend
    art = tile_mlir.compile(open(os.path.join(ROOT, "examples", "demo.mlir")).read(),
                            emit=("ptx",))
    assert SimBackend(art, None).options["strict"] is True  # jit()'s sim backend, unless strict=False
    assert SimBackend(art, None, options={"strict": False}).options["strict"] is False
    assert os.environ.get("TILE_MLIR_SIM_STRICT") == "1"  # test/python/conftest.py


@pytest.mark.slow  # block-scaled GEMMs on tile-sim
@pytest.mark.parametrize("kind", ["mxf8", "nvf4"])
def test_blockscaled_reads_every_scale_factor(kind, tmp_path):
    """The stored reference is what the stored buffers decode to (bench/foreign/blockscaled.py
    `reference`: e4m3 / e2m1 codes, low nibble first, scales from the 32x4x4 atoms); doubling one
    scale of A and one of B changes C exactly as that decoding says, on tile-sim as shipped."""
    import shutil
    import blockscaled
    name = f"bw_blockscaled_{kind}"
    man, _, data = corpus.load(FIX, name)
    M, N, K = man["shape"]["M"], man["shape"]["N"], man["shape"]["K"]
    bufs = {n: data[n] for n in man["inputs"]}
    np.testing.assert_array_equal(blockscaled.reference(kind, bufs, M, N, K).astype(np.float32),
                                  data["ref_c"])
    fmt, vec = blockscaled.KINDS[kind][1], blockscaled.KINDS[kind][2]
    for key, mn, (r, k) in (("sfa", M, (M - 3, 1)), ("sfb", N, (37, K // vec - 1))):
        sf = blockscaled.unblocked_scales(bufs[key], mn, K // vec).copy()
        sf[r, k] = blockscaled.codes_of(fmt, [2 * blockscaled.decode(fmt, [sf[r, k]])[0] or 1])[0]
        bufs[key] = blockscaled.blocked_scales(sf, mn, K // vec)
    ref = blockscaled.reference(kind, bufs, M, N, K).astype(np.float32)
    rows, cols = np.nonzero(ref != data["ref_c"])  # in one row and one column of C only
    assert len(rows) > M // 2 and ((rows == M - 3) | (cols == 37)).all()
    for ext in ("ptx", "json"):
        shutil.copy(os.path.join(FIX, f"{name}.{ext}"), tmp_path)
    np.savez(tmp_path / f"{name}.npz", **bufs, ref_c=ref)
    outs, refs, _ = corpus.run(str(tmp_path), name)
    np.testing.assert_array_equal(outs["c"].view(np.uint8), ref.view(np.uint8))


@pytest.mark.parametrize("name", NAMES)
def test_corpus_assembles(name):
    sys.path.insert(0, os.path.join(ROOT, "test", "python", "sim"))
    from ptxgen import ptxas_check
    man = json.load(open(os.path.join(FIX, f"{name}.json")))
    if ptxas_check(open(os.path.join(FIX, f"{name}.ptx")).read(), man["arch"]) == "skip":
        pytest.skip("no ptxas found")
