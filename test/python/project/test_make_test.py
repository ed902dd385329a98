"""`make test` shows pytest's summary line and the reason of every skip (issue 23 item 9), and runs the
fast tier (issue 35: the tests marked `slow` are left to `make test-all`): the project's pytest options
(pyproject.toml) with the Makefile's command line, run on a small file."""
from __future__ import annotations

import pathlib
import re
import shlex
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _make_variables(text: str) -> dict[str, str]:
    """The Makefile's simple `NAME = value` / `NAME ?= value` assignments."""
    return {m.group(1): m.group(2).strip()
            for m in re.finditer(r"^([A-Z_]+)\s*\??=\s*(.*)$", text, re.M)}


def _expand(text: str, variables: dict[str, str]) -> str:
    for _ in range(5):
        text = re.sub(r"\$\(([A-Z_]+)\)", lambda m: variables.get(m.group(1), m.group(0)), text)
    return text


def _make_pytest_args(target: str = "test") -> list[str]:
    """The arguments `make TARGET` gives pytest (the recipe line of that target)."""
    text = (ROOT / "Makefile").read_text()
    recipe = text.split(f"\n{target}: $(STAMP)", 1)[1].split("\n\n", 1)[0]
    line = next(ln for ln in recipe.splitlines() if "-m pytest" in ln)
    command = line.split("-m pytest", 1)[1].split(";")[0]  # (make test: the shell's next command follows)
    return shlex.split(_expand(command, _make_variables(text)))


def _run(tmp_path, args):
    (tmp_path / "test_small.py").write_text(
        "import pytest\n\ndef test_ok():\n    pass\n\n"
        "def test_skipped():\n    pytest.skip('no frobnicator here')\n\n"
        "@pytest.mark.slow\ndef test_long():\n    pass\n")
    for helper in ("conftest.py", "tiers.py"):  # the --fast-limit and --tier options
        shutil.copy(ROOT / "test" / "python" / helper, tmp_path)
    args = [a for a in args if a != "test/python"] + [str(tmp_path / "test_small.py")]
    assert "-n" in args, args  # the Makefile's pytest runs on every core (pytest-xdist) ...
    args[args.index("-n") + 1] = "0"  # ... which three tests do not need: xdist's options, no workers
    return subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"),
                           "--rootdir", str(tmp_path), "-p", "no:cacheprovider", *args],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)


def test_make_test_prints_summary_and_skip_reasons_and_leaves_slow_out(tmp_path):
    out = _run(tmp_path, _make_pytest_args("test"))
    assert out.returncode == 0, out.stdout + out.stderr
    # (pytest-xdist's workers deselect: its summary names no deselected test)
    assert re.search(r"\b1 passed, 1 skipped(, 1 deselected)? in ", out.stdout), out.stdout
    assert "SKIPPED" in out.stdout and "no frobnicator here" in out.stdout, out.stdout


def test_make_test_slow_runs_only_the_slow_tier(tmp_path):
    out = _run(tmp_path, _make_pytest_args("test-slow"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(r"\b1 passed(, 2 deselected)? in ", out.stdout), out.stdout


def test_make_test_all_is_both_tiers_and_the_second_provider():
    text = (ROOT / "Makefile").read_text()
    assert re.search(r"^test-all: test test-slow test-upstream$", text, re.M)
    ci = (ROOT / ".ci" / "run").read_text()
    for target in ("make test", "make test-slow", "make test-upstream"):
        assert re.search(rf"^step {target}$", ci, re.M), target


def test_readme_pytest_lines_keep_the_summary():
    """The README's pytest commands add at most one -q to the project's options."""
    addopts = re.search(r'addopts = "([^"]*)"', (ROOT / "pyproject.toml").read_text()).group(1)
    assert "-q" not in addopts.split() and "-rs" in addopts.split()
    for line in (ROOT / "README.md").read_text().splitlines():
        if "-m pytest" in line:
            assert line.split("#")[0].split().count("-q") <= 1, line
