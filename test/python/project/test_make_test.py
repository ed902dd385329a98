"""`make test` shows pytest's summary line and the reason of every skip (issue 23 item 9): the
project's pytest options (pyproject.toml) with the Makefile's command line, run on a small file."""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _make_pytest_args() -> list[str]:
    """The arguments `make test` gives pytest (the recipe line of the `test` target)."""
    text = (ROOT / "Makefile").read_text()
    recipe = text.split("\ntest:", 1)[1].split("\n\n", 1)[0]
    line = next(ln for ln in recipe.splitlines() if "-m pytest" in ln)
    return line.split("-m pytest", 1)[1].split()


def test_make_test_prints_summary_and_skip_reasons(tmp_path):
    (tmp_path / "test_small.py").write_text(
        "import pytest\n\ndef test_ok():\n    pass\n\n"
        "def test_skipped():\n    pytest.skip('no frobnicator here')\n")
    args = [a for a in _make_pytest_args() if a != "test/python"] + [str(tmp_path / "test_small.py")]
    out = subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"),
                          "--rootdir", str(tmp_path), "-p", "no:cacheprovider", *args],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(r"1 passed, 1 skipped", out.stdout), out.stdout
    assert "SKIPPED" in out.stdout and "no frobnicator here" in out.stdout, out.stdout


def test_readme_pytest_lines_keep_the_summary():
    """The README's pytest commands add at most one -q to the project's options."""
    addopts = re.search(r'addopts = "([^"]*)"', (ROOT / "pyproject.toml").read_text()).group(1)
    assert "-q" not in addopts.split() and "-rs" in addopts.split()
    for line in (ROOT / "README.md").read_text().splitlines():
        if "-m pytest" in line:
            assert line.split("#")[0].split().count("-q") <= 1, line
