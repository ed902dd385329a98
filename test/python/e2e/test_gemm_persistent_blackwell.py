"""The persistent block-scaled Blackwell GEMM (examples/gemm_persistent_blackwell.py): its diagnostics, its PTX
(ring stages, accumulators and parities chosen at run time, assembled by ptxas), and on tile-sim, bit for bit
MMA-Sim's Blackwell model with CTAs walking several tiles through the two tensor-memory accumulators and
partial tiles in M, N and K (TMA's zero fill, the clipped TMA store)."""
from __future__ import annotations

import os
import re
import sys

import numpy as np
import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir)
sys.path.insert(0, os.path.join(ROOT, "examples"))

import gemm_persistent_blackwell as gpb  # noqa: E402
import gemm_reference as ref  # noqa: E402


@pytest.mark.parametrize("kwargs, message", [
    ({"tile_n": 256}, r"2 accumulators of 256 columns \+ 4 stages x 12 scale-factor columns = 560 exceed tensor "
                      "memory's 512"),
    ({"dtype": "nvfp4", "tile_n": 256, "stages": 2}, "= 608 exceed tensor memory's 512"),
    ({"k": 400}, "multiple of 32"),
    ({"k": 96}, "at least one whole 128 x 128 x 128 tile"),
    ({"m": 100}, "at least one whole"),
    ({"n": 260}, "N a multiple of 8"),
    ({"stages": 1}, "at least 2 stages"),
    ({"stages": 7}, "bytes of shared memory"),
    ({"dtype": "e4m3"}, "dtype must be one of"),
    ({"cta_group": 2, "ctas": 1}, "a CTA pair needs at least 2 CTAs"),
    ({"cta_group": 4}, "1, or 2"),
])
def test_config_errors(kwargs, message):
    args = {"dtype": "mxfp8", "m": 300, "n": 264, "k": 416, **kwargs}
    with pytest.raises(ValueError, match=message):
        gpb.PersistentBlackwellConfig(**args)


def test_tiling_and_tensor_memory():
    cfg = gpb.PersistentBlackwellConfig("mxfp8", 300, 264, 416, ctas=2)
    assert (cfg.tiles, cfg.grid, cfg.k_tiles, cfg.tile_k) == ((3, 3), (2, 1, 1), 4, 128)  # K 416 = 3 tiles + 32
    assert (cfg.stage_cols, cfg.tmem_used, cfg.tmem_cols) == (8, 2 * 128 + 4 * 8, 512)
    nv = gpb.PersistentBlackwellConfig("nvfp4", 300, 264, 416)
    assert (nv.tile_k, nv.k_tiles, nv.stage_cols, nv.tmem_used, nv.grid) == (256, 2, 32, 384, (9, 1, 1))
    pair = gpb.PersistentBlackwellConfig("mxfp8", 520, 264, 416, ctas=5, cta_group=2)
    # 256-row tiles, 2 pairs (the odd CTA left over), a CTA's stage: A, half of B's rows, SFA and SFB atoms
    assert (pair.tiles, pair.units, pair.grid) == ((3, 3), 2, (4, 1, 1))
    assert pair.stage_bytes == (128 + 64) * 128 + 2 * 512 and pair.name.endswith("_pair")


def test_persistent_blackwell_ptx(tmp_path):
    """The tile loop and the K loop with stage and parity from the step count, the accumulator picked by the
    tile count (selp over tmem addresses), tcgen05.cp of the scale atoms and block-scaled MMAs per stage, a
    commit freeing each stage and one per tile to acc_full, the epilogue's arrive on acc_empty, the TMA store;
    ptxas assembles it for sm_100a."""
    import subprocess

    import tile_mlir
    from tile_mlir.driver.toolchain import find_tool

    for dtype, kind in (("mxfp8", "mxf8f6f4.block_scale.block32"), ("nvfp4", "mxf4nvf4.block_scale.block16")):
        cfg = gpb.PersistentBlackwellConfig(dtype, 2048, 2048, 1024)
        art = tile_mlir.compile(gpb.build(cfg), arch="sm_100a")
        assert tuple(art.grid) == (148, 1, 1) and tuple(art.block) == (256, 1, 1)
        assert [p.name for p in art.params] == ["A", "B", "SFA", "SFB", "D"]
        ptx = art.ptx
        assert f"tcgen05.mma.cta_group::1.kind::{kind}" in ptx
        assert ptx.count("tcgen05.commit.cta_group::1") == 2  # (a stage's empty, a tile's acc_full)
        assert ptx.count("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32") == 1
        # waits on run-time parities: empty (the producer), acc_empty and full (the MMA thread), acc_full, free and
        # written (the epilogue); those on a barrier picked at run time (a register address) at least acc_empty,
        # full and acc_full (libNVVM's unrolling may resolve the producer's picks: k_tiles % stages == 0 here)
        waits = re.findall(r"mbarrier\.try_wait\.parity\.shared\.b64 %p\d+, \[([^\]]+)\], %r\d+;", ptx)
        assert len(waits) >= 6 and sum(w.startswith("%r") for w in waits) >= 3
        # (a ring pick of the scale factors' tmem columns: selp.b32 between tcgen05 addresses)
        assert ptx.count("selp.b32") >= 8
        # the store of D: two 128B-swizzled boxes of 64 columns (a thread's row stored without bank conflicts)
        assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta") == 2
        assert [(tm.box_dim, tm.swizzle) for tm in art.tensor_maps][-1] == ((64, 128), "128b")
        assert ptx.count("st.shared.v4.b32") == 16 and "xor.b32" in ptx
        ptxas = find_tool("ptxas")
        if ptxas is None:
            pytest.skip("ptxas not found")
        (tmp_path / f"{dtype}.ptx").write_text(ptx)
        subprocess.run([ptxas, "-arch=sm_100a", str(tmp_path / f"{dtype}.ptx"), "-o", str(tmp_path / f"{dtype}.cubin")],
                       check=True)


@pytest.mark.parametrize("dtype", ["mxfp8", "nvfp4"])
def test_persistent_blackwell_pair_ptx(tmp_path, dtype):
    """cta_group 2: clusters of 2, M = 256 MMAs from the even CTA, its commits multicast to both CTAs' barriers
    (a stage's empty, a tile's acc_full), every epilogue thread's acc_empty arrive on the even CTA's barrier
    (mapa + .shared::cluster), cluster barriers after set-up and before leaving; ptxas assembles it."""
    import subprocess

    import tile_mlir
    from tile_mlir.driver.toolchain import find_tool

    cfg = gpb.PersistentBlackwellConfig(dtype, 2048, 2048, 1024, cta_group=2)
    art = tile_mlir.compile(gpb.build(cfg), arch="sm_100a")
    assert tuple(art.cluster) == (2, 1, 1) and tuple(art.grid) == (148, 1, 1)  # (74 pairs on 128 tiles)
    ptx = art.ptx
    assert "tcgen05.mma.cta_group::2.kind::" in ptx and "tcgen05.mma.cta_group::1" not in ptx
    assert ptx.count("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64") == 2
    assert ptx.count("mbarrier.arrive.shared::cluster.b64 _,") == 1
    assert ptx.count("barrier.cluster.arrive") == 2
    assert [tm.box_dim for tm in art.tensor_maps][:2] == [(128, 128), (128, 64)]  # (B: half the tile's rows)
    ptxas = find_tool("ptxas")
    if ptxas is None:
        pytest.skip("ptxas not found")
    (tmp_path / "k.ptx").write_text(ptx)
    subprocess.run([ptxas, "-arch=sm_100a", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")], check=True)


@pytest.mark.slow  # multi-tile GEMMs on tile-sim
@pytest.mark.parametrize("dtype, m, n, k, ctas, group_m, stages, cg", [
    # 6 tiles on 2 CTAs (3 each: acc[0], acc[1], acc[0] again after its acc_empty), rows 256..299 of the
    # last tile row clipped, N 136 = 1 tile + 8; K 416 = 3 K tiles + 32 (zero filled); 4 K steps over 4 stages
    pytest.param("mxfp8", 300, 136, 416, 2, 8, 4, 1, id="mxfp8-6-tiles-edge-m-n-k"),
    # 6 tiles in groups of 2 (a short last group), N 264 = 2 tiles + 8, K 288 = one 256-wide K tile + 32, a
    # 2-stage ring whose parity turns within and across tiles
    pytest.param("nvfp4", 200, 264, 288, 2, 2, 2, 1, id="nvfp4-6-tiles-short-group-2-stages"),
    # one CTA walking 4 tiles (each accumulator twice), 3 K steps over 3 stages: a tile's first step at stage 0,
    # then (k_tiles 2 from 160) stages 2, 1, 0 across tiles; edges in M, N and K
    pytest.param("mxfp8", 136, 200, 160, 1, 8, 3, 1, id="mxfp8-one-cta-4-tiles-ring-across-tiles"),
    # 3 tiles (one column) on 2 CTAs, K 800 = 3 K tiles + 32: the last scale atom past K is TMA's zero fill
    pytest.param("nvfp4", 300, 128, 800, 2, 8, 4, 1, id="nvfp4-3-tiles-edge-m-partial-k-atom"),
    # CTA pairs: one pair walking 6 tiles of 256 x 128; the second tile row's odd CTA (rows 384..) wholly past M
    # (it loads zeros, its store is clipped away, its epilogue still releases the accumulators), N and K edges
    pytest.param("mxfp8", 300, 264, 416, 2, 8, 4, 2, id="mxfp8-pair-6-tiles-odd-half-past-m"),
    # 2 pairs x 3 tiles (5 CTAs asked: the odd one left out), rows 512..519 of the last tile row, N 136, K 288
    pytest.param("nvfp4", 520, 136, 288, 5, 8, 3, 2, id="nvfp4-2-pairs-3-tiles-each-edges"),
])
def test_persistent_blackwell_on_tile_sim_is_mmasim_bit_for_bit(dtype, m, n, k, ctas, group_m, stages, cg):
    """D from tile-sim == MMA-Sim's Blackwell model of the kernel's chain (over K padded with zeros to whole K
    tiles), rounded to bf16, bit for bit; and within bf16 rounding plus the chain's fp32 error of the exact
    block-scaled product of the unpadded operands."""
    cfg = gpb.PersistentBlackwellConfig(dtype, m, n, k, ctas=ctas, group_m=group_m, stages=stages, cta_group=cg)
    assert cfg.tiles[0] * cfg.tiles[1] > cfg.units  # every CTA's loop walks more than one tile
    d, (a, sfa, b, sfb) = gpb.run(cfg)
    want = gpb.expected(cfg, (a, sfa, b, sfb))
    assert np.array_equal(d.view(np.uint16), want.view(np.uint16))
    fmt = cfg.fmt
    exact = ref.exact_blockscaled(a, sfa, b, sfb, fmt)
    mag = np.abs(ref.dequantize(a, sfa, fmt)) @ np.abs(ref.dequantize(b, sfb, fmt)).T
    steps = cfg.k_tiles * cfg.tile_k // fmt.mma_k
    assert np.all(np.abs(d.astype(np.float64) - exact) <= 2.0 ** -8 * np.abs(exact) + steps * 2.0 ** -22 * mag)


def test_pair_kernel_releasing_the_accumulators_locally_deadlocks():
    """The odd CTA's epilogue arriving on its own acc_empty (no CTA rank) leaves the even CTA's barrier at 128 of
    its 256 arrivals: the MMA thread, coming back to acc[0] for the pair's third tile, waits forever. What the
    remote arrive is for."""
    import ml_dtypes
    import tile_mlir
    from tile_mlir.frontend.context import make_context
    from tile_mlir.mlir import ir
    from tile_mlir.runtime import SimRunError

    cfg = gpb.PersistentBlackwellConfig("mxfp8", 256, 384, 128, ctas=2, cta_group=2)
    text, n = re.subn(r'"tile\.mbarrier\.arrive"\((%\w+), %\w+\) : \((.*?), i32\) -> \(\)',
                      r'"tile.mbarrier.arrive"(\1) : (\2) -> ()', str(gpb.build(cfg)))
    assert n == 1
    with make_context():
        module = ir.Module.parse(text)
        args = gpb.operands(cfg)
        kernel = tile_mlir.jit(module, arch="sm_100a", backend="sim")
        with pytest.raises(SimRunError, match=r"deadlock(.|\n)*CTA 0 warp 1 lanes 0: .*mbarrier\.try_wait.* of CTA 0 "
                                                r"\(phase 0, pending 128/256, tx 0\)"):
            kernel(*[args[k] for k in ("A", "B", "SFA", "SFB")], np.zeros((cfg.m, cfg.n), ml_dtypes.bfloat16))
