"""The static import graph of a package tree, for the structure tests (test_layering.py,
sim/test_structure.py). An import anywhere in a file counts, a late one inside a function too: a late
import that exists only to dodge a cycle is still a cycle in the design. `late_imports` lists the imports
inside functions, for the rule that each says why it is late."""
from __future__ import annotations

import ast
import functools
import pathlib


def module_name(root: pathlib.Path, path: pathlib.Path) -> str:
    """Dotted name of `path` in the package whose directory is `root` (root.name is the top package)."""
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _parsed(path: pathlib.Path) -> tuple[list[str], ast.Module]:
    """(lines, syntax tree) of a file, parsed once per process while it is unchanged (the structure
    tests walk the whole package three times)."""
    st = path.stat()
    return _parse(path, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=None)
def _parse(path: pathlib.Path, mtime_ns: int, size: int) -> tuple[list[str], ast.Module]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return lines, ast.parse("\n".join(lines))


@functools.lru_cache(maxsize=None)  # (the tests ask for a tree's graph when they run, once per process)
def imports(root: pathlib.Path, init_names: bool = False) -> dict[str, set[str]]:
    """{module: the modules of the same tree it imports}. A package's __init__ is not counted as a
    dependency of its own submodules, except with `init_names`: then a submodule that imports a name
    the package's __init__ holds (not a submodule of it: `from . import build_machine`) depends on that
    __init__, which is the hidden cycle when the __init__ imports the submodule back."""
    files = {module_name(root, p): p for p in root.rglob("*.py")}
    graph = {}
    for mod, path in files.items():
        pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        out = set()
        for node in ast.walk(_parsed(path)[1]):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([node.module] if node.module else []))
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]
            else:
                continue
            for n in names:
                while n and n not in files:
                    n = n.rpartition(".")[0]
                from_init = init_names and isinstance(node, ast.ImportFrom) and n == base
                if n and n != mod and (from_init or not mod.startswith(n + ".")):
                    out.add(n)
        graph[mod] = out
    return graph


def late_imports(root: pathlib.Path, top: str) -> list[tuple[pathlib.Path, int, bool]]:
    """[(file, line, has a reason)] for every import of the package `top` inside a function. The reason
    is a `#` comment on the import's lines or on the line just above it; a run of imports, one statement
    after another, shares the comment above its first."""
    found = []
    for path in sorted(root.rglob("*.py")):
        lines, tree = _parsed(path)
        starts = {n.end_lineno + 1: n.lineno for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))}
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom):
                    ours = node.level > 0 or (node.module or "").split(".")[0] == top
                elif isinstance(node, ast.Import):
                    ours = any(a.name.split(".")[0] == top for a in node.names)
                else:
                    continue
                if ours:
                    own = lines[node.lineno - 1: node.end_lineno]
                    first = node.lineno
                    while first in starts:  # the statement just above is an import too: the run's first
                        first = starts[first]
                    above = lines[first - 2].strip() if first > 1 else ""
                    found.append((path, node.lineno, any("#" in ln for ln in own) or above.startswith("#")))
    return sorted(set(found))


def first_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as [a, b, ..., a], or None."""
    done, path = set(), []

    def visit(m):
        if m in path:
            return path[path.index(m):] + [m]
        if m in done:
            return None
        path.append(m)
        for n in sorted(graph.get(m, ())):
            found = visit(n)
            if found:
                return found
        path.pop()
        done.add(m)
        return None

    for m in sorted(graph):
        found = visit(m)
        if found:
            return found
    return None
