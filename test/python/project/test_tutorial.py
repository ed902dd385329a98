"""docs/tutorial.md, step by step (issue 23 item 1): each step's tile IR (examples/tutorial/) compiles,
its PTX assembles with ptxas for sm_100a and has no fence twice in a row, and it runs on tile-sim with
data checked against numpy. The tutorial shows each file verbatim."""
from __future__ import annotations

import pathlib
import re

import ml_dtypes
import numpy as np
import pytest

import tile_mlir
from e2e_kernels import find_ptxas, ptxas

ROOT = pathlib.Path(__file__).resolve().parents[3]
STEPS = ROOT / "examples" / "tutorial"
TUTORIAL = (ROOT / "docs" / "tutorial.md").read_text()
PTXAS = find_ptxas()
RNG = np.random.default_rng(23)


def _step1():
    a = np.arange(512, dtype=np.uint8).reshape(32, 16)
    return (a, np.zeros_like(a)), lambda out: np.array_equal(out[1], a)


def _step2():
    a = RNG.standard_normal((128, 4)).astype(np.float32)
    return (a, np.zeros_like(a)), lambda out: np.array_equal(out[1], a)


def _step3():
    a = RNG.standard_normal((128, 64)).astype(ml_dtypes.bfloat16)
    out = np.zeros((64, 64), ml_dtypes.bfloat16)
    return (a, out), lambda args: np.array_equal(args[1], a[64:])


def _step4():
    a = RNG.standard_normal((128, 64)).astype(ml_dtypes.bfloat16)
    b = RNG.standard_normal((64, 64)).astype(ml_dtypes.bfloat16)
    d = np.zeros((128, 64), np.float32)
    exact = a.astype(np.float64) @ b.astype(np.float64).T
    # bf16 products are exact in f32; the f32 sums of 64 of them round by at most 64 ulps of the sum
    mag = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)).T
    bound = 64 * np.spacing(mag.astype(np.float32)).astype(np.float64)
    return (a, b, d), lambda args: bool(np.all(np.abs(args[2] - exact) <= bound))


STEP_DATA = {"step1_copy": _step1, "step2_tmem": _step2, "step3_tma": _step3, "step4_gemm": _step4}


def test_every_step_file_is_tested_and_shown():
    files = sorted(p.stem for p in STEPS.glob("*.mlir"))
    assert files == sorted(STEP_DATA)
    for name in files:
        text = (STEPS / f"{name}.mlir").read_text()
        assert f"examples/tutorial/{name}.mlir" in TUTORIAL, name
        assert text.strip() in TUTORIAL, f"docs/tutorial.md does not show {name}.mlir as it is"


@pytest.mark.parametrize("name", sorted(STEP_DATA))
def test_step_compiles_assembles_and_runs(name):
    path = STEPS / f"{name}.mlir"
    art = tile_mlir.compile(path, arch="sm_100a")
    fences = [ln.strip() for ln in art.ptx.splitlines() if "fence" in ln]
    lines = [ln.strip() for ln in art.ptx.splitlines() if ln.strip()]
    for prev, line in zip(lines, lines[1:]):
        assert not ("fence" in line and line == prev), f"{name}: two {line} in a row"
    if name != "step1_copy":
        assert fences, name
    if PTXAS:
        ptxas(art.ptx, PTXAS, "sm_100a")
    args, check = STEP_DATA[name]()
    result = tile_mlir.jit(art, backend="sim")(*args)
    assert result.backend == "sim"
    assert check(args), name


def test_step_outputs_are_detected():
    """The outputs each step writes (tile-run needs no --zeros): TMA stores included."""
    outs = {n: tile_mlir.compile(STEPS / f"{n}.mlir", arch="sm_100a").outputs for n in STEP_DATA}
    assert outs == {"step1_copy": ("out",), "step2_tmem": ("out",), "step3_tma": ("out",),
                    "step4_gemm": ("D",)}


def test_tutorial_links_stay_in_the_repository():
    for target in re.findall(r"\]\(([^)]+)\)", TUTORIAL):
        if target.startswith(("http://", "https://", "#")):
            continue
        assert (ROOT / "docs" / target.split("#")[0]).resolve().is_relative_to(ROOT), target
        assert (ROOT / "docs" / target.split("#")[0]).exists(), target


EXAMPLES = sorted((ROOT / "examples").glob("*.mlir")) + sorted(STEPS.glob("*.mlir"))
INSERTED = ("proxy_async", "tcgen05_before_sync", "tcgen05_after_sync", "mbarrier_init")  # lowering/fences.py


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_use_type_aliases_and_write_no_inserted_fence(path):
    """Every example names its buffer types once, and leaves the fences the compiler inserts to it
    (docs/fences.md); its PTX still has them, none twice in a row."""
    text = path.read_text()
    body = [ln for ln in text.splitlines() if not ln.startswith(("!", "//"))]
    assert not [ln for ln in body if "!tile.buffer<" in ln], path.name
    for kind in INSERTED:
        assert f'kind = "{kind}"' not in text, (path.name, kind)
    ptx = tile_mlir.compile(path, arch="sm_100a").ptx
    lines = [ln.strip() for ln in ptx.splitlines() if ln.strip()]
    assert not [a for a, b in zip(lines, lines[1:]) if "fence" in a and a == b]
    if "tcgen05" in ptx:
        assert "tcgen05.fence::before_thread_sync;" in ptx and "tcgen05.fence::after_thread_sync;" in ptx
    if "mbarrier.init" in ptx:
        assert "fence.mbarrier_init.release.cluster;" in ptx


def test_docs_and_readme_link_only_inside_the_repository():
    """A clone has no ../shared: the docs say things in their own words (issue 23 item 1)."""
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text()
        assert "../shared" not in text and "/work/shared" not in text and "mma-tma-reference" not in text, path.name
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
            if not target.startswith(("http://", "https://")):
                assert (path.parent / target).resolve().is_relative_to(ROOT), (path.name, target)
