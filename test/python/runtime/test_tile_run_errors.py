"""tile-run's errors at the user's line (issue 35 item 4): a tile-sim fault of a .mlir kernel names the tile
IR file:line:col in MLIR's diagnostic form with one prefix (tile-run compiles with line info whenever the
kernel will run on tile-sim), a deadlock names the wait's line the same way, and --plot without matplotlib is
refused before anything is compiled or run."""
from __future__ import annotations

import pathlib

import pytest

from tile_mlir.runtime import tile_run

ROOT = pathlib.Path(__file__).resolve().parents[3]
STEP2 = (ROOT / "examples" / "tutorial" / "step2_tmem.mlir").read_text()


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
