"""The README is one page (issue 35: at most 150 lines) and what it shows works: its tile IR is the
tutorial's first step as committed, each Python block runs from the repository root and prints what its
`print(...)  # expected` comments say, on the public API alone (tile_mlir and tile_mlir.builders), and every link
it makes names a file of the repository."""
from __future__ import annotations

import ast
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
README = (ROOT / "README.md").read_text()


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```$", README, re.M | re.S)


def test_one_page():
    assert len(README.splitlines()) <= 150


def test_ir_block_is_the_tutorial_step():
    (block,) = _blocks("mlir")
    committed = (ROOT / "examples" / "tutorial" / "step1_copy.mlir").read_text()
    body = "\n".join(ln for ln in committed.splitlines() if not ln.startswith("//")).strip()
    assert block.strip() == body


@pytest.mark.parametrize("index", range(len(_blocks("python"))))
def test_python_block_runs(index):
    code = _blocks("python")[index]
    expected = [m.group(1).strip() for m in re.finditer(r"^print\(.*\)\s+# (.*)$", code, re.M)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "TILE_MLIR_CACHE": "0"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    for want in expected:
        assert want in lines, (want, out.stdout)


@pytest.mark.parametrize("index", range(len(_blocks("python"))))
def test_python_block_uses_the_public_api(index):
    for node in ast.walk(ast.parse(_blocks("python")[index])):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tile_mlir"):
            assert node.module == "tile_mlir" and all(a.name == "builders" for a in node.names), ast.dump(node)
        if isinstance(node, ast.Import):
            assert all(not a.name.startswith("tile_mlir.") for a in node.names), ast.dump(node)


def test_links_name_files_of_the_repository():
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        assert (ROOT / target).exists(), target
