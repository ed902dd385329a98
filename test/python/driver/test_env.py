"""Environment variables (issue 23 item 7): one prefix, one home (tile_mlir.env), one table (docs/environment.md);
no other name read, and a TILE_* name outside the prefix reported."""
from __future__ import annotations

import pathlib
import re
import warnings

import pytest

from tile_mlir import env

ROOT = pathlib.Path(__file__).resolve().parents[3]
PKG = ROOT / "python" / "tile_mlir"


def _doc_table() -> dict[str, str]:
    rows = {}
    for line in (ROOT / "docs" / "environment.md").read_text().splitlines():
        m = re.match(r"\| `(TILE_\w+)` \| ([^|]*) \| [^|]* \|$", line)
        if m:
            rows[m.group(1)] = m.group(2).strip()
    return rows


def test_doc_table_is_the_registry():
    rows = _doc_table()
    assert set(rows) == set(env.VARIABLES)
    for name, var in env.VARIABLES.items():
        assert rows[name] == (var.default or "unset"), name


def test_one_prefix():
    for var in env.VARIABLES.values():
        assert var.name.startswith("TILE_MLIR_"), var.name


def test_every_variable_the_package_names_is_registered():
    named = set()
    for path in PKG.rglob("*.py"):
        if path.name == "env.py":
            continue
        named |= set(re.findall(r"\bTILE_(?:MLIR|EMU|SIM|FUZZ)_[A-Z0-9_]+\b", path.read_text()))
    assert named - set(env.VARIABLES) == set()


def test_only_env_reads_the_environment_for_our_names():
    """No module but env.py reads a TILE_* variable from os.environ (writing one, as tile-opt does
    for its own process, is allowed)."""
    pat = re.compile(r"(os\.environ\.get|os\.getenv|os\.environ\[)\(?\s*[\"']TILE_")
    bad = [str(p.relative_to(PKG)) for p in PKG.rglob("*.py")
           if p.name != "env.py" and pat.search(p.read_text())]
    assert bad == []


def _unprefixed(name: str) -> str:
    """`name` without its MLIR_ (TILE_MLIR_SIM_MAX_SECONDS -> TILE_SIM_MAX_SECONDS): how the variables
    were spelled before they all took the prefix."""
    return "TILE_" + name[len("TILE_MLIR_"):]


@pytest.mark.parametrize("old, new", [("TILE_SIM_MAX_SECONDS", "TILE_MLIR_SIM_MAX_SECONDS"),
                                      ("TILE_SIM_STRICT", "TILE_MLIR_SIM_STRICT")])
def test_an_old_name_is_read_with_a_warning(monkeypatch, old, new):
    """The spellings before the prefix (issue 35: accepted with a warning): read where the new name is unset,
    reported once per process; the new name wins where both are set."""
    assert _unprefixed(new) in env.RENAMED and env.RENAMED[old] == new
    monkeypatch.setattr(env, "_warned", set())
    monkeypatch.setattr(env, "_scanned", -1)  # (env looks at the names again when their count changes)
    monkeypatch.delenv(new, raising=False)
    monkeypatch.setenv(old, "7")
    with pytest.warns(FutureWarning, match=f"{old} is the old name of {new}: read where {new} is unset"):
        assert env.get(new) == "7"
    monkeypatch.setenv(new, "3")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per process and name
        assert env.get(new) == "3"


def test_a_typo_is_reported_with_the_nearest_variable(monkeypatch):
    monkeypatch.setattr(env, "_warned", set())
    monkeypatch.setattr(env, "_scanned", -1)  # (env looks at the names again when their count changes)
    monkeypatch.setenv("TILE_BACKENDD", "sim")
    with pytest.warns(UserWarning, match="TILE_BACKENDD is not read .*: set TILE_MLIR_BACKEND"):
        env.get("TILE_MLIR_ARCH")


def test_defaults_and_flags(monkeypatch):
    monkeypatch.delenv("TILE_MLIR_DEVICE", raising=False)
    assert env.get("TILE_MLIR_DEVICE") == "0"
    monkeypatch.delenv("TILE_MLIR_ARCH", raising=False)
    assert env.get("TILE_MLIR_ARCH") is None
    for value, on in (("1", True), ("yes", True), ("0", False), ("off", False), ("", False)):
        monkeypatch.setenv("TILE_MLIR_SIM_PROGRESS", value)
        assert env.flag("TILE_MLIR_SIM_PROGRESS") is on
    with pytest.raises(KeyError):
        env.get("TILE_MLIR_NO_SUCH_THING")
