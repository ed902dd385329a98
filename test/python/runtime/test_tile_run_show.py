"""tile-run for a new user (issue 23 item 6): NaN/inf-aware summaries with counts and no numpy warning,
outputs written by TMA stores (through a subview window) found without --zeros, inputs shown with
--print-inputs, --expected compared and --plot drawn (matplotlib, the optional extra `plot`)."""
from __future__ import annotations

import importlib.util
import pathlib
import warnings

import ml_dtypes
import numpy as np
import pytest

import tile_mlir
from tile_mlir.runtime import tile_run
from tile_mlir.runtime.show import compare, summary

ROOT = pathlib.Path(__file__).resolve().parents[3]
DEMO = str(ROOT / "examples" / "demo.mlir")

# a TMA store into a window of `out` (what the README's GEMM does with D)
TMA_STORE_WINDOW = """
!gA = !tile.buffer<global, 64x64xbf16>
!gO = !tile.buffer<global, 128x64xbf16>
!wO = !tile.buffer<global, 64x64xbf16, "S[(64, 64) : (64, 1)]">
!sT = !tile.buffer<shared, 64x64xbf16, "Swizzle<128B> o S[(64, 64) : (64, 1)]", align 1024>
!bar = !tile.buffer<shared, 1xi64>
"tile.kernel"() ({
^bb0(%A: !gA, %out: !gO):
  %ma = "tile.tensor_map"(%A) {box = array<i64: 64, 64>, swizzle = "128B"} : (!gA) -> !tile.tensormap
  %mo = "tile.tensor_map"(%out) {box = array<i64: 64, 64>, swizzle = "128B"} : (!gO) -> !tile.tensormap
  %s = "tile.alloc_shared"() : () -> !sT
  %bar = "tile.alloc_shared"() : () -> !bar
  %tid = "tile.thread_id"() : () -> i32
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %t0 = arith.cmpi eq, %tid, %c0 : i32
  scf.if %t0 {
    "tile.mbarrier.init"(%bar) {count = 1} : (!bar) -> ()
    "tile.fence"() {kind = "mbarrier_init"} : () -> ()
  }
  "tile.barrier"() : () -> ()
  scf.if %t0 {
    "tile.mbarrier.arrive_expect_tx"(%bar) {bytes = 8192} : (!bar) -> ()
    "tile.copy_async"(%s, %A, %bar) {scope = "thread"} : (!sT, !gA, !bar) -> ()
  }
  "tile.mbarrier.wait"(%bar) {phase = 0} : (!bar) -> ()
  scf.if %t0 {
    %w = "tile.subview"(%out, %c64, %c0) {static_offsets = array<i64: -1, -1>, sizes = array<i64: 64, 64>} : (!gO, i32, i32) -> !wO
    "tile.copy_async"(%w, %s) {scope = "thread"} : (!wO, !sT) -> ()
    "tile.bulk_wait"() {pending = 0} : () -> ()
  }
  "tile.return"() : () -> ()
}) {sym_name = "store_window", block = array<i32: 128, 1, 1>} : () -> ()
"""


def test_summary_counts_nan_and_inf_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = summary("x", np.array([np.nan, np.inf, -1, 2], np.float32))
        assert s.startswith("x: shape=(4,) dtype=float32 min=-1.0 max=2.0 mean=0.5 nan=1 inf=1 sha256=")
        assert "min=- max=- mean=- nan=3 inf=0" in summary("y", np.full(3, np.nan))
        assert "min=1.0 max=1.0 mean=1 nan=1 inf=0" in summary("b", np.array([np.nan, 1], ml_dtypes.bfloat16))
        assert "nan" not in summary("i", np.arange(4, dtype=np.int32))
        assert compare(np.array([np.nan, np.inf, 1.0]), np.array([np.nan, np.inf, 1.5])) == \
            "vs expected: 1 of 3 differ, max_abs_err=0.5"
        assert compare(np.array([np.inf]), np.array([1.0])) == "vs expected: 1 of 1 differ, max_abs_err=inf"


def test_tma_store_through_a_window_is_an_output(tmp_path, capsys):
    art = tile_mlir.compile(TMA_STORE_WINDOW, arch="sm_100a")
    assert art.outputs == ("out",)
    path = tmp_path / "k.mlir"
    path.write_text(TMA_STORE_WINDOW)
    assert tile_run.main([str(path), "--backend", "sim", "--print", "summary", "--output-dir",
                          str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [ln.split(":")[0] for ln in out] == ["out"]  # no --zeros needed, A not printed
    a = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32).astype(ml_dtypes.bfloat16)
    got = np.load(tmp_path / "out.npy", allow_pickle=False).view(ml_dtypes.bfloat16)  # saved as raw 2-byte
    assert np.array_equal(got[64:], a) and not got[:64].view(np.uint16).any()


def test_print_inputs_and_expected(tmp_path, capsys):
    a = ((np.arange(512) * 7 + 3) % 256).astype(np.uint8).reshape(32, 16)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "want.npy", np.tile(a, (4, 1)))
    assert tile_run.main([DEMO, str(tmp_path / "a.npy"), "--backend", "sim", "--print", "summary",
                          "--print-inputs", "--expected", f"out={tmp_path / 'want.npy'}"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("input A: shape=(32, 16) dtype=uint8")
    assert lines[1].startswith("out: shape=(128, 16) dtype=uint8")
    assert lines[1].endswith("vs expected: 0 of 2048 differ, max_abs_err=0")
    assert tile_run.main([DEMO, "--backend", "sim", "--print-inputs", "--print", "full"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("input A = array([[") and "\nout = array([[" in text


def test_expected_names_an_output(capsys):
    assert tile_run.main([DEMO, "--backend", "sim", "--expected", "A=x.npy"]) == 1
    assert "--expected A: not an output (outputs: out)" in capsys.readouterr().err


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None,
                    reason="matplotlib is not installed (the optional extra `plot`)")
def test_plot_draws_heat_maps(tmp_path, capsys):
    a = ((np.arange(512) * 7 + 3) % 256).astype(np.uint8).reshape(32, 16)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "want.npy", np.tile(a, (4, 1)))
    png = tmp_path / "out.png"
    assert tile_run.main([DEMO, str(tmp_path / "a.npy"), "--backend", "sim", "--print", "none",
                          "--expected", f"out={tmp_path / 'want.npy'}", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"wrote {png}" in capsys.readouterr().err


def test_plot_without_matplotlib_says_how_to_get_it(tmp_path, capsys, monkeypatch):
    import builtins
    real = builtins.__import__

    def no_matplotlib(name, *a, **k):
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    assert tile_run.main([DEMO, "--backend", "sim", "--print", "none", "--plot", str(tmp_path / "p.png")]) == 1
    err = capsys.readouterr().err
    assert "--plot needs matplotlib" in err and "pip install 'tile_mlir[plot]'" in err
