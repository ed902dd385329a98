"""tile-run's errors at the user's line (issue 35 item 4): a tile-sim fault of a .mlir kernel names the tile
IR file:line:col in MLIR's diagnostic form with one prefix (tile-run compiles with line info whenever the
kernel will run on tile-sim), a deadlock names the wait's line the same way, --plot without matplotlib is
refused before anything is compiled or run, and a warning is one line as the tool's own (a compile's
diagnostic as MLIR prints it, an unread environment variable after `tile-run: warning:`), never Python's
`cache.py:246: TileWarning: ...` and the library line that raised it."""
from __future__ import annotations

import pathlib

import pytest

from tile_mlir.runtime import tile_run

ROOT = pathlib.Path(__file__).resolve().parents[3]
STEP2 = (ROOT / "examples" / "tutorial" / "step2_tmem.mlir").read_text()
STEP3 = (ROOT / "examples" / "tutorial" / "step3_tma.mlir").read_text()


def _line_col(text: str, needle: str) -> tuple[int, int]:
    for n, line in enumerate(text.split("\n"), 1):
        if needle in line:
            return n, len(line) - len(line.lstrip()) + 1
    raise AssertionError(needle)


def _race(tmp_path) -> tuple[pathlib.Path, int, int]:
    """Tutorial step 2 without its wait on the tcgen05.cp's commit: the tcgen05.ld reads too early."""
    text = "\n".join(ln for ln in STEP2.split("\n") if "tile.mbarrier.wait" not in ln)
    path = tmp_path / "race1.mlir"
    path.write_text(text)
    line, col = _line_col(text, '"tile.copy_async"(%regs, %tmem)')
    return path, line, col


@pytest.mark.parametrize("extra", [[], ["-O", "line_info=true"], ["-O", "line_info=false"]])
def test_a_sim_fault_names_the_tile_ir_line_once(tmp_path, capsys, extra):
    path, line, col = _race(tmp_path)
    assert tile_run.main([str(path), "--backend", "sim", "--print", "none", *extra]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    if extra == ["-O", "line_info=false"]:  # asked for no line info: the PTX line alone
        assert err[0].startswith("tile-run: error: line "), err
        return
    assert err[0].startswith(f"{path}:{line}:{col}: error: "), err
    assert "tile-run: error:" not in err[0] and err[0].count(": error: ") == 1, err[0]
    assert "tcgen05.ld by lane 0 reads TMEM written by the tcgen05.cp" in err[0]


def test_a_deadlock_names_the_wait_once(tmp_path, capsys):
    # a count-2 barrier that one arrival (the commit) never completes
    text = STEP2.replace('"tile.mbarrier.init"(%bar) {count = 1}', '"tile.mbarrier.init"(%bar) {count = 2}')
    path = tmp_path / "deadlock.mlir"
    path.write_text(text)
    line, col = _line_col(text, '"tile.mbarrier.wait"')
    assert tile_run.main([str(path), "--backend", "sim", "--print", "none", "--max-seconds", "60"]) == 1
    err = capsys.readouterr().err
    first = err.splitlines()[0]
    assert first == f"{path}:{line}:{col}: error: deadlock: no thread can make progress; positions:", err
    assert "(phase 0, pending 1/2, tx 0)" in err


def test_plot_without_matplotlib_is_refused_before_compiling(tmp_path, capsys, monkeypatch):
    import builtins

    from tile_mlir.runtime import cache

    real = builtins.__import__

    def no_matplotlib(name, *a, **k):
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real(name, *a, **k)

    def no_compile(*a, **k):
        raise AssertionError("compiled before --plot was checked")

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    monkeypatch.setattr(cache, "compile_cached", no_compile)
    path, _, _ = _race(tmp_path)
    assert tile_run.main([str(path), "--backend", "sim", "--plot", str(tmp_path / "p.png")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["tile-run: error: --plot needs matplotlib (No module named 'matplotlib'): "
                   "pip install 'tile_mlir[plot]'"], err


def test_a_compile_warning_is_printed_as_its_diagnostic(tmp_path, capsys):
    # step 3's TMA load without its mbarrier: lowered to cp.async, with a warning at the copy
    text = STEP3.replace('"tile.copy_async"(%smem, %A, %bar) {src_offsets', '"tile.copy_async"(%smem, %A) {src_offsets')
    text = text.replace("(!sT, !gA, !bar) -> ()", "(!sT, !gA) -> ()")
    path = tmp_path / "nobar.mlir"
    path.write_text(text)
    line, col = _line_col(text, '"tile.copy_async"(%smem, %A)')
    assert tile_run.main([str(path), "--backend", "sim", "--no-run"]) == 0
    err = [ln for ln in capsys.readouterr().err.splitlines() if "warning" in ln]
    assert len(err) == 1 and err[0].startswith(f"{path}:{line}:{col}: warning: 'tile.copy_async' op lowered to "
                                               "cp.async"), err


@pytest.mark.parametrize("name, warning", [
    ("TILE_SIM_STRCT", "the environment variable TILE_SIM_STRCT is not read (tile_mlir's variables are spelled "
                       "TILE_MLIR_*): set TILE_MLIR_SIM_STRICT"),
    ("TILE_SIM_STRICT", "the environment variable TILE_SIM_STRICT is the old name of TILE_MLIR_SIM_STRICT: read "
                        "where TILE_MLIR_SIM_STRICT is unset; rename it")])
def test_a_variable_outside_the_prefix_is_warned_by_the_tool(tmp_path, capsys, monkeypatch, name, warning):
    """A typo (not read) and an old name (read) each get one line of the tool's own."""
    from tile_mlir import env

    monkeypatch.setattr(env, "_warned", set())
    monkeypatch.setattr(env, "_scanned", -1)
    monkeypatch.setenv(name, "1")
    path = tmp_path / "copy.mlir"
    path.write_text((ROOT / "examples" / "tutorial" / "step1_copy.mlir").read_text())
    assert tile_run.main([str(path), "--backend", "sim", "--print", "none"]) == 0
    err = [ln for ln in capsys.readouterr().err.splitlines() if "warning" in ln]
    assert err == ["tile-run: warning: " + warning], err
