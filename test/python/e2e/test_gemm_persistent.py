"""The persistent Hopper GEMM (examples/gemm_persistent.py): its diagnostics, its PTX (the ring's stage and
parity chosen at run time), and on tile-sim, bit for bit MMA-Sim's Hopper model, with the CTAs' rings running
across tiles, a short last raster group and K not a multiple of the K tile (TMA's zero fill)."""
from __future__ import annotations

import os
import re
import sys

import numpy as np
import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir)
sys.path.insert(0, os.path.join(ROOT, "examples"))

import gemm_persistent as gp  # noqa: E402


@pytest.mark.parametrize("kwargs, message", [
    ({"m": 200, "epilogue": "registers"}, "whole 128 x 256 tiles only"),
    ({"n": 300}, "a multiple of 8"),
    ({"epilogue": "smem"}, "epilogue must be one of"),
    ({"k": 600, "dtype": "e4m3"}, "16-byte multiple"),
    ({"stages": 5}, "at most 232448 bytes"),
    ({"dtype": "f16"}, "dtype must be one of"),
    ({"tile_n": 100}, "wgmma N is 8..256"),
])
def test_config_errors(kwargs, message):
    args = {"dtype": "bf16", "m": 256, "n": 512, "k": 640, **kwargs}
    with pytest.raises(ValueError, match=message):
        gp.PersistentConfig(**args)


def test_grid_and_k_tiles():
    cfg = gp.PersistentConfig("bf16", 8192, 28672, 8200)
    assert (cfg.tiles, cfg.grid, cfg.k_tiles) == ((64, 112), 132, 129)  # K 8200 = 128 tiles + 8 (zero filled)
    assert gp.PersistentConfig("e4m3", 256, 512, 640).grid == 4
    assert gp.PersistentConfig("e4m3", 200, 296, 640).tiles == (2, 2)  # edge tiles count
    tma = gp.PersistentConfig("bf16", 256, 512, 640, epilogue="tma")
    assert (tma.stages, tma.epi_cols, tma.epi_rounds, tma.smem_bytes) == (4, 64, 4, 4 * 49152 + 32768 + 32 + 64 + 1024)
    # (two 64 x 64 staging boxes a consumer; tile_n not a multiple of 64: one unswizzled box of the whole row)
    assert gp.PersistentConfig("bf16", 256, 480, 640, tile_n=240).epi_cols == 240


def test_default_epilogue():
    """The TMA-store epilogue is the default at every shape (the H200 suite, docs/gemm-walkthrough.md §10); the
    register one stores whole tiles only."""
    assert gp.PersistentConfig("bf16", 8192, 8192, 8192).epilogue == "tma"
    assert gp.PersistentConfig("bf16", 8192, 8192, 8192, epilogue="registers").stages == 4
    with pytest.raises(ValueError, match="whole 128 x 256 tiles only"):
        gp.PersistentConfig("bf16", 8000, 8192, 8192, epilogue="registers")
    with pytest.raises(ValueError, match="epilogue must be one of tma, registers"):
        gp.PersistentConfig("bf16", 8192, 8192, 8192, epilogue="auto")


def test_persistent_ptx(tmp_path):
    """One CTA per multiprocessor at most; the tile loop, the K loop with stage and parity from the step count
    (selp over the stages' addresses, try_wait.parity on a register), wgmma m64n256k16 per K step; the epilogue's
    TMA stores of each consumer's 64 rows in four rounds of 64 columns through two 128B-swizzled staging boxes,
    each box rewritten once the store two rounds back has read it (one group left in flight), the registers
    stored to the boxes with the swizzle's XOR."""
    import subprocess

    import tile_mlir
    from tile_mlir.driver.toolchain import find_tool

    art = tile_mlir.compile(gp.build(gp.PersistentConfig("bf16", 1024, 2048, 1024)), arch="sm_90a")
    assert tuple(art.grid) == (64, 1, 1) and tuple(art.block) == (384, 1, 1)
    assert [p.name for p in art.params] == ["A", "B", "D"]  # (the builder's kernel arg_names)
    assert "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16" in art.ptx
    assert re.search(r"mbarrier\.try_wait\.parity\.shared\.b64 %p\d+, \[%r\d+\], %r\d+;", art.ptx)
    assert art.ptx.count("selp.b32") >= 4  # (at least one pick of each of sa, sb, full, empty)
    assert [tm.box_dim for tm in art.tensor_maps] == [(64, 128), (64, 256), (64, 64)]  # (innermost first)
    assert [tm.swizzle for tm in art.tensor_maps] == ["128b", "128b", "128b"]
    assert art.ptx.count("cp.async.bulk.tensor.2d.global.shared::cta") == 8  # (2 consumers x 4 rounds)
    assert len(re.findall(r"cp\.async\.bulk\.wait_group\.read\s+1;", art.ptx)) == 8
    assert art.ptx.count("fence.proxy.async.shared::cta;") == 8
    assert art.ptx.count("st.shared.b32") == 128 and art.ptx.count("xor.b32") >= 2  # (64 words x 2 consumers)
    ptxas = find_tool("ptxas")
    if ptxas is None:
        pytest.skip("ptxas not found")
    (tmp_path / "k.ptx").write_text(art.ptx)
    subprocess.run([ptxas, "-arch=sm_90a", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")], check=True)


def test_multicast_ptx():
    """cluster_m 2: a cluster of 2 CTAs, B's map boxing half the tile's rows, each CTA's half multicast to both
    (ctaMask 3), both CTAs' empty barriers released by each consumer (mapa + a .shared::cluster arrive), and a
    cluster barrier before the CTAs leave."""
    cfg = gp.PersistentConfig("bf16", 1024, 2048, 1024, cluster_m=2)
    assert cfg.grid == 64 and cfg.units == (4, 8) and cfg.name.startswith("gemm_persistent_mc2_")
    import tile_mlir
    art = tile_mlir.compile(gp.build(cfg), arch="sm_90a")
    assert tuple(art.cluster) == (2, 1, 1) and tuple(art.grid) == (64, 1, 1)
    assert [tm.box_dim for tm in art.tensor_maps][:2] == [(64, 128), (64, 128)]
    assert len(re.findall(r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes"
                          r"\.multicast::cluster", art.ptx)) == 2  # (one per rank's half)
    assert art.ptx.count("mbarrier.arrive.shared::cluster.b64 _,") == 4  # (2 consumers x 2 release points)
    assert art.ptx.count("barrier.cluster.arrive") == 2  # (after the barriers' init, before leaving)
    for kwargs, message in (({"epilogue": "registers"}, "the TMA epilogue"), ({"ctas": 1}, "at least 2 CTAs"),
                            ({"tile_n": 136}, "multiple of 16"), ({"cluster_m": 4}, "1 or 2")):
        with pytest.raises(ValueError, match=message):
            gp.PersistentConfig("bf16", 1024, 2048, 1024, **{"cluster_m": 2, **kwargs})


def test_pingpong_ptx():
    """schedule pingpong: each consumer issues two wgmma m64n128 per k16 (its tile's two 64-row halves), waits
    for the other's tile on its order barrier and releases the tensor cores to it after its last MMAs; up to 6
    stages of 32 KB; each 64-row half stored in two 64-column rounds."""
    cfg = gp.PersistentConfig("bf16", 8192, 8192, 512, tile_n=128, schedule="pingpong")
    assert (cfg.stages, cfg.epi_cols, cfg.epi_rounds, cfg.tiles) == (6, 64, 2, (64, 64)) and "_pingpong_" in cfg.name
    import tile_mlir
    art = tile_mlir.compile(gp.build(cfg), arch="sm_90a")
    assert art.ptx.count("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16") == 16  # (2 consumers x 2 halves x 4)
    assert len(re.findall(r"wgmma\.wait_group\.sync\.aligned\s+2;", art.ptx)) == 2
    assert [tm.box_dim for tm in art.tensor_maps] == [(64, 128), (64, 128), (64, 64)]
    for kwargs, message in (({"tile_n": 256}, "tile_n at most 128"), ({"cluster_m": 2}, "cluster_m 1"),
                            ({"epilogue": "registers"}, "the TMA epilogue"), ({"schedule": "x"}, "schedule must be")):
        with pytest.raises(ValueError, match=message):
            gp.PersistentConfig("bf16", 1024, 2048, 1024, **{"tile_n": 128, "schedule": "pingpong", **kwargs})


@pytest.mark.parametrize("dtype, m, n, k, ctas, group_m, epilogue, extra", [
    # 2 CTAs x 2 tiles, 10 K steps over 4 stages: a tile's first step lands mid-ring, in the other parity
    pytest.param("bf16", 256, 256, 640, 2, 8, "registers", {}, id="bf16-ring-across-tiles"),
    # 3 tile rows in groups of 2 (a short last group), 5 K steps, the last 80 of 128 wide (zero filled)
    pytest.param("e4m3", 384, 128, 592, 2, 2, "registers", {}, id="e4m3-short-group-partial-k"),
    # 1 CTA, 2 tiles, K 600 = 9 K tiles + 24 (zero filled)
    pytest.param("bf16", 128, 256, 600, 1, 8, "registers", {}, id="bf16-one-cta-partial-k"),
    # TMA-store epilogue: 3 tiles a CTA (the shared tile rewritten), rows 200.. of the last tile row clipped
    pytest.param("bf16", 200, 384, 600, 2, 8, "tma", {}, id="bf16-tma-store-edge-m-k"),
    # edges in M (320 = 2.5 tiles: one consumer's rows wholly past M), N (200 = 1.56 tiles) and K
    pytest.param("e4m3", 320, 200, 592, 2, 2, "tma", {}, id="e4m3-tma-store-edge-m-n-k"),
    # clusters of 2 multicasting halves of B: 2 clusters x 2 units; the pair of the third tile row has its
    # second CTA wholly past M (loading B for its peer, its stores clipped away); K of 4 steps over 4 stages
    pytest.param("bf16", 384, 256, 256, 4, 8, "tma", {"cluster_m": 2}, id="bf16-multicast-pairs-past-m"),
    # one cluster walking 4 units, edges in M, N and K, the ring's parity turning across units
    pytest.param("e4m3", 320, 200, 592, 2, 2, "tma", {"cluster_m": 2}, id="e4m3-multicast-edge-m-n-k"),
    # pingpong: 9 tiles on 2 CTAs, so consumer 1 takes 3 of CTA 0's 5 tiles and consumer 2 two (each waiting for
    # the other's MMAs); 4 K steps over 6 stages, so a consumer's K steps start mid-ring
    pytest.param("bf16", 384, 384, 256, 2, 8, "tma", {"schedule": "pingpong"}, id="bf16-pingpong-odd-tiles"),
    # pingpong with edges in M, N and K, 2 stages (each stage's parity turning many times), one CTA
    pytest.param("e4m3", 200, 200, 592, 1, 2, "tma", {"schedule": "pingpong", "stages": 2},
                 id="e4m3-pingpong-edge-m-n-k"),
    # tile_n 192: three 64-column rounds a store, so the staging box alternates across a CTA's tiles
    pytest.param("bf16", 256, 384, 256, 2, 8, "tma", {"tile_n": 192}, id="bf16-tma-store-odd-rounds"),
    # tile_n 120 (not a multiple of 64): one unswizzled staging box of whole rows, clipped at N 200
    pytest.param("e4m3", 128, 200, 256, 1, 8, "tma", {"tile_n": 120}, id="e4m3-tma-store-unswizzled-edge-n"),
    # smaller than one tile in every dim (boxes larger than the tensors: TMA fills loads and clips stores)
    pytest.param("bf16", 1, 8, 8, 2, 8, "tma", {}, id="bf16-one-row-below-a-tile"),
    pytest.param("e4m3", 100, 40, 48, 2, 8, "tma", {}, id="e4m3-below-a-tile"),
    pytest.param("bf16", 5, 40, 24, 2, 8, "tma", {"cluster_m": 2}, id="bf16-multicast-below-a-tile"),
])
@pytest.mark.slow  # multi-tile GEMMs on tile-sim
def test_persistent_on_tile_sim_is_mmasim_bit_for_bit(dtype, m, n, k, ctas, group_m, epilogue, extra):
    """tile_n 128 (wgmma m64n128) unless said keeps the emulation short; the H200 runs tile_n 256 (pingpong: 128)."""
    cfg = gp.PersistentConfig(dtype, m, n, k, ctas=ctas, group_m=group_m, epilogue=epilogue, **{"tile_n": 128, **extra})
    d, a, b = gp.run(cfg, seed=5)
    kp = cfg.k_tiles * cfg.tile_k
    want = gp.expected(gp.padded(a, kp), gp.padded(b, kp))
    assert np.array_equal(d.view(np.uint16), want.view(np.uint16))
