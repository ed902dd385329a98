"""References that go stale (issue 35: the tutorial pointed at a module that had become a package, comments
cited a file the repository does not hold): every repository path a doc or a source comment names exists,
and the version is written once.

A cited path is a word that starts with a top-level folder of the repository or a subpackage of
python/tile_mlir (`docs/tma.md`, `dialect/checks.py`, `sim/mma_numerics`) and is found from the root, from
the citing file's folder or from python/tile_mlir, with `.py` added or in place of a dotted attribute
(`examples/attention_reference.model`). `{a,b}` alternatives are expanded; a glob or a prefix (`test_e2e_*`,
`approx_`) is not checked. EXTERNAL names what is cited but is not ours to hold: other projects' paths and
what a tool writes when it runs."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "python" / "tile_mlir"

#: cited, never in the repository: paths of the projects the corpus compiles (CUTLASS's CuTe DSL examples,
#: Triton's tutorials), MLIR's own docs, what a run writes (lit's output, the large corpus), placeholders
EXTERNAL = ("examples/python/CuTeDSL", "python/tutorials", "docs/BytecodeFormat.md", "test/Output",
            "bench/foreign/corpus", "examples/tutorial/name.mlir", "bench/zoo/tile_ir/bug.file",
            "layout/dialect/lowering")
SKIP = ("bench/results/", "test/fixtures/")  # measured logs and fixtures, kept as written
SELF = str(Path(__file__).resolve().relative_to(ROOT))  # (its probe cites stale paths on purpose)
SUFFIXES = (".md", ".py", ".mlir", ".toml", ".cfg", ".txt", ".irdl", ".sh")


def _tracked() -> list[str]:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"not a git checkout: {e}")
    return out.stdout.split()


def _expand(path: str) -> list[str]:
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [p for alt in m.group(1).split(",") for p in _expand(path[:m.start()] + alt + path[m.end():])]


def _found(path: str, citing: str) -> bool:
    bases = (ROOT, (ROOT / citing).parent, PACKAGE)
    stems = (path, path + ".py", re.sub(r"\.\w+$", ".py", path))
    return any((base / stem).exists() for base in bases for stem in stems)


def _citation_pattern(files: list[str]) -> re.Pattern:
    roots = {f.split("/")[0] for f in files if "/" in f}
    roots |= {p.name for p in PACKAGE.iterdir() if p.is_dir() and not p.name.startswith("__")}
    return re.compile(r"(?<![\w/.$-])((?:" + "|".join(sorted(map(re.escape, roots), key=len, reverse=True))
                      + r")/[\w./{},*-]*[\w}*])")


def stale_citations(citing: str, text: str, word: re.Pattern) -> list[str]:
    """'citing:line: path' for each path `text` (the file `citing`, relative to ROOT) cites that is not found."""
    stale = []
    for n, line in enumerate(text.splitlines(), 1):
        for m in word.finditer(line):
            for path in _expand(m.group(1).rstrip(".")):
                if "*" in path or "{" in path or path.endswith(("_", "-")) or path.startswith(EXTERNAL):
                    continue
                if not _found(path, citing):
                    stale.append(f"{citing}:{n}: {path}")
    return stale


def test_every_cited_path_exists():
    files = _tracked()
    word, stale = _citation_pattern(files), []
    for f in files:
        if f.startswith(SKIP) or not (f.endswith(SUFFIXES) or f == "Makefile") or f == SELF:
            continue
        try:
            text = (ROOT / f).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        stale += stale_citations(f, text, word)
    assert stale == []


def test_a_stale_citation_is_found():
    # the two kinds this test exists for: a module that became a package, a file that was never committed
    text = ("see dialect/ops.py and bench/fuzz_ldst.py; docs/tutorial.md and sim/mma_numerics are here\n"
            "`test/Conversion/TileToNVVM/tcgen05-ldst-{shapes,nope}.mlir`, python/tutorials/x.py is Triton's\n")
    found = stale_citations("docs/probe.md", text, _citation_pattern(_tracked()))
    assert found == ["docs/probe.md:1: dialect/ops.py", "docs/probe.md:1: bench/fuzz_ldst.py",
                     "docs/probe.md:2: test/Conversion/TileToNVVM/tcgen05-ldst-nope.mlir"]


def test_the_version_has_one_home():
    import tile_mlir

    literal = re.compile(r"""["']""" + re.escape(tile_mlir.__version__) + r"""["']""")
    homes = [str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py") if literal.search(p.read_text())]
    assert homes == ["python/tile_mlir/__init__.py"]
    assert 'version = {attr = "tile_mlir.__version__"}' in (ROOT / "pyproject.toml").read_text()
    from tile_mlir.opt.command import VERSION

    assert VERSION is tile_mlir.__version__
