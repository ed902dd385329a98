"""The persistent dense Blackwell GEMM (examples/gemm_dense_blackwell.py): kind::f16 (bf16, f16), kind::f8f6f4
(e4m3, e5m2) and kind::tf32, cta_group 1 and 2. Its diagnostics, its PTX (assembled by ptxas for sm_100a), and on
tile-sim D bit for bit the exact model of MMA-Sim's Blackwell arithmetic (tile-sim's integer formulation of it),
that model checked against MMA-Sim itself on sampled tiles, with CTAs walking several units through the two
tensor-memory accumulators, partial tiles in M, N and K, and split-K."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir)
sys.path.insert(0, os.path.join(ROOT, "examples"))

import gemm_dense_blackwell as gdb  # noqa: E402
import gemm_reference as ref  # noqa: E402

from tile_mlir.gemm.blackwell_config import BlackwellConfig  # noqa: E402

KINDS = {"bf16": "f16", "f16": "f16", "e4m3": "f8f6f4", "e5m2": "f8f6f4", "tf32": "tf32"}


def _pb(dtype, m, n, k, ctas=gdb.B200_SMS, **kwargs) -> gdb.DenseProblem:
    return gdb.DenseProblem(BlackwellConfig(dtype, **kwargs), m, n, k, ctas=ctas)


@pytest.mark.parametrize("kwargs, message", [
    ({"dtype": "mxfp8"}, "dtype must be one of"),
    ({"tile_n": 96}, "tile_n=96: 64, 128, 192 or 256"),
    ({"tile_n": 320}, "tile_n=320"),
    ({"stages": 1}, "2 to 8"),
    ({"stages": 7}, "these need"),
    ({"tile_n": 256, "stages": 4}, "these need"),
    ({"cta_group": 3}, "1, or 2"),
    ({"split_k": 0}, "must be positive"),
    ({"split_k": 65}, "1 to 64"),
])
def test_config_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        BlackwellConfig(**{"dtype": "bf16", **kwargs})


@pytest.mark.parametrize("args, kwargs, message", [
    (("bf16", 300, 264, 404), {}, r"K=404, N=264: rows of A and B of a 16-byte multiple \(K a multiple of 8\)"),
    (("e4m3", 300, 264, 408), {}, r"K a multiple of 16"),
    (("tf32", 300, 264, 418), {}, r"K a multiple of 4"),
    (("bf16", 300, 260, 416), {}, "N a multiple of 8"),
    (("bf16", 0, 264, 416), {}, "sizes from 1 to 2147483647"),
    (("bf16", 300, 264, 1 << 31), {}, "sizes from 1 to 2147483647"),
    (("bf16", 300, 264, 416), {"cta_group": 2, "ctas": 1}, "a CTA pair needs at least 2 CTAs"),
])
def test_problem_errors(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        _pb(*args, **kwargs)


def test_tiling():
    pb = _pb("bf16", 300, 264, 416, ctas=2)
    # K 416 = 6 K tiles of 64 + 32; stages: as many as fit (6 of 32 KB with the 32 KB staging tile)
    assert (pb.tiles, pb.grid, pb.k_tiles, pb.tile_k, pb.cfg.stages) == ((3, 3), (2, 1, 1), 7, 64, 6)
    assert (pb.cfg.tmem_cols, pb.cfg.stage_bytes) == (256, 256 * 128)
    wide = BlackwellConfig("tf32", tile_n=256)
    assert (wide.tile_k, wide.tmem_cols, wide.stages, wide.tiles(300, 264)) == (32, 512, 3, (3, 2))
    pair = _pb("e4m3", 520, 264, 416, ctas=10, cta_group=2, split_k=2)
    # 256-row tiles, K tiles 4 in 2 splits of 2: 18 units on 5 pairs; the fp32 staging tile takes 64 KB
    assert (pair.tiles, pair.work, pair.units, pair.grid, pair.k_per_split) == ((3, 3), 18, 5, (10, 1, 1), 2)
    assert (pair.cfg.stage_bytes, pair.cfg.stages, pair.cfg.epi_box) == ((128 + 64) * 128, 6, 32)
    assert pair.cfg.name == "gemm_sm100_e4m3_n128_cg2_s6_g8_k2"


def _ptxas(tmp_path, ptx: str, name: str) -> None:
    from tile_mlir.driver.toolchain import find_tool
    ptxas = find_tool("ptxas")
    if ptxas is None:
        pytest.skip("ptxas not found")
    (tmp_path / f"{name}.ptx").write_text(ptx)
    subprocess.run([ptxas, "-arch=sm_100a", str(tmp_path / f"{name}.ptx"), "-o", str(tmp_path / f"{name}.cubin")],
                   check=True)


# make test's tier compiles each kind once (both cta_groups among them); the slow tier the other five
PTX_FAST = {("bf16", 1), ("f16", 2), ("e4m3", 2), ("e5m2", 1), ("tf32", 1)}


@pytest.mark.parametrize("dtype, cg", [pytest.param(d, cg, marks=() if (d, cg) in PTX_FAST else pytest.mark.slow)
                                       for d in sorted(KINDS) for cg in (1, 2)])
def test_dense_blackwell_ptx(tmp_path, dtype, cg):
    """Each kind's MMA (the kind and cta_group PTX names), one commit freeing a stage and one per unit (a pair's
    multicast to both CTAs), the accumulator picked at run time, the two 64-column TMA stores of D; ptxas
    assembles it for sm_100a."""
    import tile_mlir

    cfg = BlackwellConfig(dtype, cta_group=cg)
    art = tile_mlir.compile(gdb.build(cfg), arch="sm_100a")
    assert tuple(art.block) == (256, 1, 1)
    assert tuple(art.cluster or (1, 1, 1)) == ((2, 1, 1) if cg == 2 else (1, 1, 1))
    assert [p.name for p in art.params] == ["A", "B", "D", "M", "N", "K"]
    ptx = art.ptx
    assert f"tcgen05.mma.cta_group::{cg}.kind::{KINDS[dtype]}" in ptx and "block_scale" not in ptx
    assert f"tcgen05.mma.cta_group::{3 - cg}" not in ptx
    commit = "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64" if cg == 2 \
        else "tcgen05.commit.cta_group::1"
    assert ptx.count(commit) == 2  # (a stage's empty, a unit's acc_full)
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta") == 2
    assert [tm.box_dim for tm in art.tensor_maps] == [(cfg.tile_k, 128), (cfg.tile_k, 128 // cg), (64, 128)]
    if cg == 2:
        assert ptx.count("mbarrier.arrive.shared::cluster.b64 _,") == 1  # (acc_empty on the even CTA)
    _ptxas(tmp_path, ptx, f"{dtype}_{cg}")


@pytest.mark.parametrize("cg", [1, 2])
def test_split_k_ptx(tmp_path, cg):
    """Split-K: the fp32 workspace W in D's place, four 32-column boxes of fp32 a 128 x 128 tile reduced into it
    (cp.reduce.async.bulk.tensor .add, in a bulk group) instead of stored; ptxas assembles it."""
    import tile_mlir

    art = tile_mlir.compile(gdb.build(BlackwellConfig("e4m3", cta_group=cg, split_k=4)), arch="sm_100a")
    assert [p.name for p in art.params] == ["A", "B", "W", "M", "N", "K"]
    ptx = art.ptx
    assert ptx.count("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group") == 4
    assert "cp.async.bulk.tensor.2d.global.shared::cta" not in ptx  # (no plain store of D)
    assert [tm.box_dim for tm in art.tensor_maps][-1] == (32, 128)
    _ptxas(tmp_path, ptx, f"split_{cg}")


def _check(cfg: gdb.DenseProblem, samples: int = 1) -> None:
    """D from tile-sim == the exact model of the kernel's chains (per split, reduced in tile-sim's order), bit
    for bit; that model == MMA-Sim on `samples` sampled 128 x 8 tiles of every split's partial, in fp32; and D
    within bf16 rounding plus the chain's error of the exact product."""
    assert cfg.work > cfg.units  # every CTA (pair) walks more than one unit
    d, (a, b) = gdb.run(cfg)
    differ, bad, compared = gdb.check(cfg, d, a, b, samples)
    assert (differ, bad) == (0, 0) and compared > 0, f"{differ} of {d.size} differ; {bad} of {compared} sampled"
    x, y = a.astype(np.float64), b.astype(np.float64)
    if cfg.dtype == "tf32":  # the MMA reads 10 fraction bits: bound against the truncated operands' product
        x, y = ((v.astype(np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
                for v in (a, b))
    exact = x @ y.T
    mag = np.abs(x) @ np.abs(y).T
    steps = cfg.split_k * cfg.k_per_split * cfg.tile_k // cfg.fmt.mma_k + cfg.split_k
    assert np.all(np.abs(d.astype(np.float64) - exact) <= 2.0 ** -8 * np.abs(exact) + steps * 2.0 ** -22 * mag)


# make test's tier: one small case a kind, cta_group 1 and 2, an edge in each of M, N, K
FAST = [
    pytest.param("bf16", 200, 136, 200, 2, 1, 1, id="bf16-4-tiles-edges-m-n-k"),
    pytest.param("f16", 300, 128, 96, 2, 2, 1, id="f16-pair-2-tiles-edge-m-k"),
    pytest.param("e4m3", 136, 200, 176, 1, 1, 1, id="e4m3-one-cta-4-tiles"),
    pytest.param("e5m2", 264, 136, 144, 2, 2, 1, id="e5m2-pair-4-tiles-edges"),
    pytest.param("tf32", 130, 264, 68, 2, 1, 1, id="tf32-6-tiles-edges"),
    # split-K: 2 tiles x 3 splits on 4 CTAs (K 168 = 3 K tiles, the last partial: one a part), the
    # fp32 partials reduced into the workspace by TMA in tile-sim's order
    pytest.param("bf16", 200, 72, 168, 4, 1, 3, id="bf16-split3-2-tiles-edges"),
]


@pytest.mark.parametrize("dtype, m, n, k, ctas, cg, split_k", FAST)
def test_dense_blackwell_on_tile_sim(dtype, m, n, k, ctas, cg, split_k):
    _check(_pb(dtype, m, n, k, ctas=ctas, cta_group=cg, split_k=split_k))


def _k(dtype: str, quarters: int) -> int:
    """K as quarters of the format's K tile (a quarter is 32 bytes of a row: TMA's 16-byte rule holds)."""
    return quarters * (1024 // ref.DENSE_FORMATS[dtype].elem_bits) // 4


# the slow tier: three shapes a kind and cta_group beyond the fast one, edges in M, N and K, the ring wrapping
# across units, tile_n 64 and 256 (two 256-column accumulators fill tensor memory)
SHAPES = [
    # (m, n, K quarters, ctas, cg, tile_n, stages, group_m, split_k)
    (300, 264, 10, 2, 1, 128, 3, 8, 1),   # 9 tiles on 2 CTAs, 3 K steps over 3 stages; rows 256.., N 264 = 2 + 8
    (136, 200, 7, 1, 1, 64, 2, 2, 1),     # one CTA walking 8 tiles of 128 x 64 in groups of 2, a 2-stage ring
    (128, 520, 6, 2, 1, 256, 0, 8, 1),    # tile_n 256: 3 tiles (the last 8 wide) on 2 CTAs, 512 tmem columns
    (200, 136, 22, 3, 1, 128, 0, 8, 3),   # split 3: 4 tiles x 3 parts of 2 K tiles on 3 CTAs (K 5.5 tiles)
    (300, 264, 10, 2, 2, 128, 3, 8, 1),   # one pair walking 6 tiles; the second tile row's odd CTA wholly past M
    (520, 136, 9, 5, 2, 128, 4, 8, 1),    # 2 pairs (the fifth CTA left out), 3 tiles each, rows 512..519
    (260, 264, 5, 2, 2, 256, 0, 8, 1),    # a pair on 256 x 256 tiles: 128 rows of B a CTA, 2 x 2 tiles
    (300, 136, 17, 6, 2, 128, 0, 8, 2),   # split 2 on 3 pairs: 4 tiles x 2 parts, an odd half past M, K edge
]


@pytest.mark.slow  # 40 multi-unit GEMMs on tile-sim
@pytest.mark.parametrize("m, n, q, ctas, cg, tile_n, stages, group_m, split_k", SHAPES,
                         ids=[f"{m}x{n}-cg{cg}-n{t}" + (f"-split{sk}" if sk > 1 else "")
                              for m, n, _, _, cg, t, _, _, sk in SHAPES])
@pytest.mark.parametrize("dtype", sorted(KINDS))
def test_dense_blackwell_shapes_on_tile_sim(dtype, m, n, q, ctas, cg, tile_n, stages, group_m, split_k):
    _check(_pb(dtype, m, n, _k(dtype, q), ctas=ctas, cta_group=cg, tile_n=tile_n, stages=stages, group_m=group_m,
               split_k=split_k))


@pytest.mark.slow  # MMA-Sim itself over every element of D (0.2 s an MMA step of 128 rows)
@pytest.mark.parametrize("dtype, cg", [("bf16", 2), ("f16", 1), ("e4m3", 2), ("e5m2", 1), ("tf32", 2)])
def test_dense_blackwell_is_mmasim_in_full(dtype, cg):
    """D from tile-sim == MMA-Sim's Blackwell model of the kernel's chain over every element (not the exact
    model), 2 x 2 tiles with edges in M, N and K."""
    cfg = _pb(dtype, 136 * cg, 200, _k(dtype, 6), ctas=cg, cta_group=cg)
    d, (a, b) = gdb.run(cfg)
    want = gdb.expected(cfg, a, b, mmasim=True)
    assert np.array_equal(d.view(np.uint16), want.view(np.uint16))


@pytest.mark.parametrize("dtype, cg", [("bf16", 1), pytest.param("e4m3", 2, marks=pytest.mark.slow)])
def test_one_kernel_serves_every_shape(dtype, cg):
    """One compiled kernel (sizes as parameters, tensor maps encoded at launch) at shapes smaller than a tile,
    with edges in M, N and K, and several units a CTA: D bit for bit the exact model each time."""
    cfg = BlackwellConfig(dtype, cta_group=cg)
    gdb._ARTIFACTS.pop(cfg, None)
    compiled = []
    for m, n, k, ctas in ((1, 8, 16, 2), (130, 136, 208, 2), (300, 72, 112, 2)):
        pb = gdb.DenseProblem(cfg, m, n, k, ctas=ctas)
        d, (a, b) = gdb.run(pb)
        compiled.append(gdb._ARTIFACTS[cfg])
        want = gdb.expected(pb, a, b, mmasim=False)
        assert np.array_equal(d.view(np.uint16), want.view(np.uint16)), (m, n, k)
    assert all(art is compiled[0] for art in compiled)  # (compiled once)


@pytest.mark.parametrize("dtype", [d if d == "bf16" else pytest.param(d, marks=pytest.mark.slow)
                                   for d in sorted(KINDS)])
def test_fast_dense_is_mmasim_bit_for_bit(dtype):
    """The exact model the checks compare D with (tile-sim's integer formulation, one chain over all of K) ==
    MMA-Sim's Blackwell model MMA by MMA, in fp32, on operands spread over the format's range (an M edge)."""
    fmt = ref.DENSE_FORMATS[dtype]
    a, b = ref.random_dense_format(fmt, 130, 16, 6 * fmt.mma_k, seed=7)
    fast = ref.fast_dense(a, b, fmt, progress=False)
    assert np.array_equal(fast.view(np.uint32), ref.mmasim_dense(a, b, fmt).view(np.uint32))


def test_example_run_line_and_usage_errors(capsys):
    assert gdb.main(["--dtype", "e5m2", "-M", "130", "-N", "72", "-K", "96", "--ctas", "2", "--split-k", "2",
                     "--run", "sim", "--samples", "1"]) == 0
    out = capsys.readouterr().out
    assert ("gemm_sm100_e5m2_n128_cg1_s5_g8_k2 130x72x96 (2 CTAs, 4 units) on sim: D == the exact model of "
            "MMA-Sim's arithmetic, bit for bit (0 of 9360 differ); the model == MMA-Sim on sampled tiles of each "
            "split in fp32 (0 of 1040 differ)") in out
    for argv, needle in ((["-K", "100"], "K a multiple of 8"), (["--tile-n", "96"], "tile_n=96"),
                         (["--cta-group", "2", "--ctas", "1"], "a CTA pair needs at least 2 CTAs")):
        with pytest.raises(SystemExit):
            gdb.main(argv)
        assert needle in capsys.readouterr().err


@pytest.mark.slow  # ~2.5 s a schedule
@pytest.mark.parametrize("cg, split_k", [(1, 1), (2, 1), (2, 2)])
def test_dense_blackwell_under_explored_schedules(monkeypatch, cg, split_k):
    """Schedule exploration (docs/emulator.md §15: PCT priorities, asynchronous completions delayed and
    reordered) finds no deadlock, race, finding or output other than the default schedule's, with a 2-stage
    ring and each walker taking 3 or 2 units (both accumulators, the staging tile reused). (jit has no explore
    option yet: the launch's run_ptx is asked for it.)"""
    import tile_mlir.sim as sim

    results, real = [], sim.run_ptx
    monkeypatch.setattr(sim, "run_ptx", lambda *a, **kw: results.append(real(*a, explore=6, seed=3, **kw))
                        or results[-1])
    cfg = BlackwellConfig("bf16", cta_group=cg, stages=2, split_k=split_k)
    gdb.run(gdb.DenseProblem(cfg, 128 * cg, 384 if split_k == 1 else 136, 160, ctas=cg * split_k))
    (r,) = results
    assert r.schedules == 6 and not r.found, r.failure
