"""tile_mlir.gemm (python/tile_mlir/gemm/, docs/gemm-library.md): one compiled kernel per configuration
serves every shape (sizes at run time), bit for bit MMA-Sim's Hopper model on tile-sim at shapes with edges
in M, N and K, K and N that TMA cannot stride padded by the library; split-K and stream-K reduced in the
kernel (the fix-up: partials added in K order, bit for bit) or by TMA reductions (in some order of the
parts); the heuristic's choices."""
from __future__ import annotations

import itertools
import os
import sys

import ml_dtypes
import numpy as np
import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir)
sys.path.insert(0, os.path.join(ROOT, "examples"))

import gemm_reference as ref  # noqa: E402
import tile_mlir  # noqa: E402
from tile_mlir.gemm import GemmConfig, choose, heuristic, kernels  # noqa: E402
from tile_mlir.gemm.heuristic import shape_class  # noqa: E402
from tile_mlir.gemm.targets import TARGETS  # noqa: E402

DT = {"bf16": ml_dtypes.bfloat16, "e4m3": ml_dtypes.float8_e4m3fn}


def _example():
    """examples/gemm.py, loaded by path (bench/gemm.py is a module `gemm` too, which another test may have
    imported first)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("examples_gemm", os.path.join(ROOT, "examples", "gemm.py"))
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_MLIR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(kernels, "_artifacts", {})
    monkeypatch.setattr(kernels, "_kernels", {})
    return tmp_path


def expected(a, b, tile_k):
    """MMA-Sim's model over K padded with zeros to whole K tiles (TMA's fill), in bf16."""
    kp = -(-a.shape[1] // tile_k) * tile_k
    return ref.to_bf16(ref.mmasim_wgmma(*(np.pad(x, ((0, 0), (0, kp - x.shape[1]))) for x in (a, b))))


@pytest.mark.slow  # GEMMs on tile-sim
def test_one_kernel_serves_every_shape(cache_dir):
    """One bf16 64 x 64 configuration at three shapes: below one tile in every dim (M 1, N 8, K 8), edges in
    M, N and K over two CTAs that each take several tiles, and a third; a single artifact, compiled once,
    saved where the next process finds it."""
    cfg = GemmConfig("bf16", tile_m=64, tile_n=64)
    for i, (m, n, k) in enumerate([(1, 8, 8), (130, 136, 200), (70, 72, 120)]):
        a, b = ref.random_dense(DT["bf16"], m, n, k, seed=i)
        d = tile_mlir.gemm(a, b, config=cfg, backend="sim", sms=2)
        assert d.shape == (m, n) and np.array_equal(d.view(np.uint16), expected(a, b, 64).view(np.uint16))
    assert list(kernels._artifacts) == [(cfg.name, "sm_90a")]
    assert sorted(os.listdir(cache_dir / "gemm" / "sm_90a")) == [cfg.name + ext for ext in (".cubin", ".json", ".ptx")]


@pytest.mark.slow
@pytest.mark.parametrize("dtype, m, n, k, cfg", [
    # K 100 e4m3 (rows of 100 bytes) and N 20 (rows of D of 40 bytes): TMA strides neither; padded to 112, 24
    pytest.param("e4m3", 70, 20, 100, GemmConfig("e4m3", tile_m=128, tile_n=16), id="e4m3-k100-n20-padded"),
    # bf16 K odd (rows of 2 K bytes), a 128-row tile (two consumer warpgroups), edges in M
    pytest.param("bf16", 150, 48, 77, GemmConfig("bf16", tile_m=128, tile_n=48), id="bf16-k77-two-consumers"),
    # CTA pairs multicasting halves of B, the second CTA of the last pair wholly past M
    pytest.param("bf16", 200, 64, 64, GemmConfig("bf16", tile_m=128, tile_n=32, cluster_m=2), id="bf16-pairs"),
])
def test_shapes_tma_cannot_stride(cache_dir, dtype, m, n, k, cfg):
    a, b = ref.random_dense(DT[dtype], m, n, k, seed=3)
    out = np.full((m, n), np.nan, ml_dtypes.bfloat16)
    d = tile_mlir.gemm(a, b, out=out, config=cfg, backend="sim", sms=2)
    assert d is out and np.array_equal(d.view(np.uint16), expected(a, b, cfg.tile_k).view(np.uint16))


@pytest.mark.slow
@pytest.mark.parametrize("dtype, m, n, k, cfg", [
    # two parts: fp32 addition of two partials into zero is the same in either order, so D is exact; several
    # units a CTA, edges in M, N and K (the second part 108 of its 192 K)
    pytest.param("bf16", 70, 72, 300, GemmConfig("bf16", tile_m=64, tile_n=64, split_k=2, split_reduce="tma"),
                 id="bf16-split2"),
    # three parts of 4 K steps over 9 tiles, e4m3 with K 1000 (rows of 1000 bytes: padded to 1008)
    pytest.param("e4m3", 130, 40, 1000, GemmConfig("e4m3", tile_m=128, tile_n=32, split_k=3, split_reduce="tma"),
                 id="e4m3-split3"),
])
def test_split_k_tma(cache_dir, dtype, m, n, k, cfg):
    """Each element of D is the bf16 of its parts' partials added into zero in one of the orders the TMA
    reductions may take (tile-sim runs the kernel's clusters serially: they communicate through the
    reductions)."""
    a, b = ref.random_dense(DT[dtype], m, n, k, seed=7)
    d = tile_mlir.gemm(a, b, config=cfg, backend="sim", sms=3).view(np.uint16)
    parts = _example().split_k_parts(a, b, cfg.split_k, cfg.tile_k)
    sums = []
    for order in itertools.permutations(parts):
        acc = np.zeros_like(parts[0])
        for p in order:
            acc = (acc + p).astype(np.float32)
        sums.append(ref.to_bf16(acc).view(np.uint16))
    assert np.logical_or.reduce([d == s for s in sums]).all()


# the kernel's own fix-up (docs/gemm-library.md §3): D is the model's partials added in K order, bit for bit
FIXUP = [
    # the fast one: stream-K, 2 tiles of 2 K steps on 3 CTAs (tile 0 from CTAs 0 and 1, tile 1 from CTA 2 alone),
    # edges in M and N
    pytest.param("bf16", 20, 24, 96, GemmConfig("bf16", tile_m=64, tile_n=16, stream_k=True), 3, id="stream-k-small"),
    # three parts over 4 tiles, 12 units on 3 CTAs (units that are not last skip the store), edges in M, N, K
    pytest.param("bf16", 70, 72, 300, GemmConfig("bf16", tile_m=64, tile_n=64, split_k=3, split_reduce="fixup"), 3, id="bf16-split3",
                 marks=pytest.mark.slow),
    # two consumer warpgroups (a semaphore each), e4m3 K 1000 padded to 1008
    pytest.param("e4m3", 130, 40, 1000, GemmConfig("e4m3", tile_m=128, tile_n=32, split_k=3, split_reduce="fixup"), 3, id="e4m3-split3",
                 marks=pytest.mark.slow),
    # CTA pairs: a slot and semaphores per CTA of the pair, the second CTA of the last pair past M
    pytest.param("bf16", 200, 64, 200, GemmConfig("bf16", tile_m=128, tile_n=32, cluster_m=2, split_k=2, split_reduce="fixup"), 4,
                 id="bf16-pairs-split2", marks=pytest.mark.slow),
    # stream-K: 4 tiles of 5 K steps over 3 CTAs' ranges of 6, 7, 7 (tiles of one, two and three segments)
    pytest.param("bf16", 70, 72, 300, GemmConfig("bf16", tile_m=64, tile_n=64, stream_k=True), 3, id="stream-k",
                 marks=pytest.mark.slow),
    # stream-K with two consumers, e4m3, edges in M, N and K, more CTAs than tiles
    pytest.param("e4m3", 130, 40, 1000, GemmConfig("e4m3", tile_m=128, tile_n=32, stream_k=True), 5,
                 id="e4m3-stream-k", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("dtype, m, n, k, cfg, sms", FIXUP)
def test_fixup(cache_dir, dtype, m, n, k, cfg, sms):
    """Split-K and stream-K with the in-kernel fix-up, bit for bit the model of examples/gemm.py (check)."""
    a, b = ref.random_dense(DT[dtype], m, n, k, seed=5)
    d = tile_mlir.gemm(a, b, config=cfg, backend="sim", sms=sms)
    assert _example().check(d, a, b, cfg, sms) == 0


def test_fixup_capacity_is_checked():
    """More split-K units (or stream-K slots) than the fix-up's static workspace holds: a ValueError before
    anything compiles."""
    a = np.zeros((1024, 64), ml_dtypes.bfloat16)
    with pytest.raises(ValueError, match="more than the fix-up's workspace holds"):
        tile_mlir.gemm.plan(a, a, config=GemmConfig("bf16", tile_m=64, tile_n=32, split_k=2, split_reduce="fixup"), backend="sim")
    with pytest.raises(ValueError, match="fix-up slots"):
        tile_mlir.gemm.plan(a, a, config=GemmConfig("bf16", tile_m=64, tile_n=32, stream_k=True), backend="sim")


def test_bad_operands_are_refused():
    a = np.zeros((4, 8), ml_dtypes.bfloat16)
    with pytest.raises(ValueError, match="needs the same K"):
        tile_mlir.gemm(a, np.zeros((4, 16), ml_dtypes.bfloat16), backend="sim")
    with pytest.raises(TypeError, match="must both be one of bfloat16, float16"):
        tile_mlir.gemm(a, np.zeros((4, 8), np.float32), backend="sim")
    with pytest.raises(ValueError, match="out must be a 4 x 4 bfloat16 array"):
        tile_mlir.gemm(a, a, out=np.zeros((4, 5), ml_dtypes.bfloat16), backend="sim")
    with pytest.raises(ValueError, match="config is for e4m3"):
        tile_mlir.gemm(a, a, config=GemmConfig("e4m3"), backend="sim")


@pytest.mark.parametrize("kwargs, message", [
    ({"tile_m": 96}, "tile_m must be 64 or 128"),
    ({"tile_n": 100}, "wgmma N is 8..256"),
    ({"cluster_m": 2, "tile_n": 24}, "tile_n a multiple of 16"),
    ({"stages": 5}, "within 232448 bytes"),
    ({"split_k": 0}, "split_k must be 1 to 64"),
    ({"split_k": 2, "split_reduce": "atomic"}, "split_reduce must be one of fixup, tma"),
    ({"split_k": 2, "tile_n": 256, "split_reduce": "fixup"}, "at most 128"),
    ({"stream_k": True, "split_k": 2}, "stream_k takes split_k 1"),
])
def test_config_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GemmConfig("bf16", **kwargs)


def test_the_heuristic():
    """The suite's 128 x 256 tile where it fills the SMs; below that tiles that fill them in one wave, 64 rows
    where M <= 64; the decode suite's shapes need few configurations (each serving every M it is chosen for)."""
    assert choose(8192, 8192, 8192, "bf16", 132) == GemmConfig("bf16")
    for m, n, k in [(1, 4096, 14336), (64, 14336, 4096), (128, 4096, 4096)]:
        cfg = choose(m, n, k, "bf16", 132)
        assert cfg.units(m, n) <= 132 and cfg.units(m, n) >= 100, cfg
        assert cfg.tile_m == (64 if m <= 64 else 128)
    decode = {choose(m, n, k, dt, 132) for dt in ("bf16", "e4m3") for m in (1, 16, 64, 128)
              for n, k in [(4096, 14336), (14336, 4096), (4096, 4096)]}
    assert len(decode) <= 12  # (24 shapes of 2 dtypes)
    # ties broken for tiles that divide N and split-K tiles at least 128 wide (the H100 probe of §7: 64 x 128 in
    # 4 parts beat 64 x 96 in 3 and 64 x 64 in 2 at N = 4096)
    for m, k in [(1, 14336), (16, 14336), (64, 14336), (1, 4096), (64, 4096)]:
        assert choose(m, 4096, k, "bf16", 132) == GemmConfig("bf16", tile_m=64, tile_n=128, split_k=4), (m, k)
    assert choose(128, 4096, 14336, "e4m3", 132) == GemmConfig("e4m3", tile_m=128, tile_n=128, split_k=4)
    assert choose(1, 4096, 14336, "bf16", 132).fixup  # (reduced in the kernel: the fix-up ran on an H100)
    assert shape_class(3, 4096, 14336) == shape_class(4, 4096, 14336) != shape_class(5, 4096, 14336)


def test_the_heuristic_with_and_without_the_fixup(monkeypatch):
    """The fix-up and stream-K checked on silicon (heuristic.SILICON_CHECKED): the split tiles are reduced in the
    kernel, and stream-K takes the shapes whose tiles cannot fill the SMs in whole parts; without them, the same
    tiles and parts are reduced by TMA and stream-K is never chosen."""
    for checked, reduce in ((True, "fixup"), (False, "tma")):
        monkeypatch.setattr(heuristic, "SILICON_CHECKED", checked)
        for m, k in [(1, 14336), (64, 4096)]:
            assert choose(m, 4096, k, "bf16", 132) == GemmConfig("bf16", tile_m=64, tile_n=128, split_k=4,
                                                                  split_reduce=reduce), (m, k)
        # 8 x 4000: 50 tiles 80 wide
        assert choose(8, 4000, 4100, "bf16", 132).stream_k == checked


def test_the_example_prints_the_choice(capsys):
    """examples/gemm.py: the configuration tile_mlir.gemm chooses for a decode shape on an H200's 132 SMs."""
    example = _example()

    assert example.main(["--dtype", "bf16", "-M", "1", "-N", "4096", "-K", "14336", "--sms", "132"]) == 0
    cfg = choose(1, 4096, 14336, "bf16", 132)
    assert capsys.readouterr().out.strip() == (f"1 x 4096 x 14336 bf16 on 132 SMs: {cfg.name} "
                                               f"({cfg.units(1, 4096)} units, grid {cfg.grid(1, 4096, 132)})")


def test_autotune_keeps_its_winner_on_disk(cache_dir, monkeypatch):
    """autotune=True times the candidates once per (device, SMs, dtype, shape class) and keeps the winner in
    <cache dir>/gemm/tuned.json, which the next call (of the same class) reads instead of timing (the timing
    itself needs a GPU: stood in for here)."""
    import json
    from types import SimpleNamespace

    from tile_mlir.gemm import autotune
    from tile_mlir.gemm.operands import prepare

    timed = []
    winner = GemmConfig("bf16", tile_m=64, tile_n=48)
    monkeypatch.setattr(autotune, "current_device", lambda: SimpleNamespace(name="Fake H100"))
    monkeypatch.setattr(autotune, "_time_candidates", lambda ops, sms, target: timed.append((ops.m, sms)) or winner)
    a, b = (np.zeros(s, ml_dtypes.bfloat16) for s in ((3, 4096), (4096, 4096)))
    hopper = TARGETS["sm_90a"]
    assert autotune.tuned(prepare(a, b), 132, hopper) == winner
    assert autotune.tuned(prepare(a[:4], b), 132, hopper) == winner  # (M 4: the same class as 3)
    assert timed == [(3, 132)]
    saved = json.loads((cache_dir / "gemm" / "tuned.json").read_text())
    assert saved == {"Fake H100|132|bf16|4x4096x4096": {"dtype": "bf16", "tile_m": 64, "tile_n": 48, "stages": 12,
                                                        "group_m": 8, "cluster_m": 1, "split_k": 1,
                                                        "split_reduce": "fixup", "stream_k": False}}
