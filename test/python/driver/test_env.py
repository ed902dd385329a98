"""Environment variables (issue 23 item 7): one prefix, one home (tile_mlir.env), one table (docs/environment.md);
old names still read with a DeprecationWarning."""
from __future__ import annotations

import pathlib
import re
import warnings

import pytest

from tile_mlir import env

ROOT = pathlib.Path(__file__).resolve().parents[3]
PKG = ROOT / "python" / "tile_mlir"


def _doc_table() -> dict[str, tuple[str, str]]:
    rows = {}
    for line in (ROOT / "docs" / "environment.md").read_text().splitlines():
        m = re.match(r"\| `(TILE_\w+)` \| ([^|]*) \| [^|]* \| ([^|]*) \|$", line)
        if m:
            rows[m.group(1)] = (m.group(2).strip(), m.group(3).strip())
    return rows


def test_doc_table_is_the_registry():
    rows = _doc_table()
    assert set(rows) == set(env.VARIABLES)
    for name, var in env.VARIABLES.items():
        default, old = rows[name]
        assert default == (var.default or "unset"), name
        assert old == ", ".join(f"`{o}`" for o in var.old), name


def test_one_prefix():
    for var in env.VARIABLES.values():
        assert var.name.startswith("TILE_MLIR_"), var.name
        assert all(not o.startswith("TILE_MLIR_") for o in var.old)


def test_every_variable_the_package_names_is_registered():
    named = set()
    for path in PKG.rglob("*.py"):
        if path.name == "env.py":
            continue
        named |= set(re.findall(r"\bTILE_(?:MLIR|EMU|SIM)_[A-Z0-9_]+\b", path.read_text()))
    old = {o for v in env.VARIABLES.values() for o in v.old}
    assert named - set(env.VARIABLES) - old == set()


def test_only_env_reads_the_environment_for_our_names():
    """No module but env.py reads a TILE_* variable from os.environ (writing one, as tile-opt does
    for its own process, is allowed)."""
    pat = re.compile(r"(os\.environ\.get|os\.getenv|os\.environ\[)\(?\s*[\"']TILE_")
    bad = [str(p.relative_to(PKG)) for p in PKG.rglob("*.py")
           if p.name != "env.py" and pat.search(p.read_text())]
    assert bad == []


def test_new_name_wins_and_old_name_warns(monkeypatch):
    monkeypatch.setattr(env, "_warned", set())
    monkeypatch.delenv("TILE_MLIR_SIM_MAX_SECONDS", raising=False)
    monkeypatch.setenv("TILE_SIM_MAX_SECONDS", "7")
    with pytest.warns(DeprecationWarning, match="TILE_SIM_MAX_SECONDS is deprecated: set "
                                                "TILE_MLIR_SIM_MAX_SECONDS"):
        assert env.get("TILE_MLIR_SIM_MAX_SECONDS") == "7"
    monkeypatch.setenv("TILE_MLIR_SIM_MAX_SECONDS", "3")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert env.get("TILE_MLIR_SIM_MAX_SECONDS") == "3"


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


def test_old_sim_names_reach_the_emulator(monkeypatch):
    from tile_mlir.sim import launch
    monkeypatch.setattr(env, "_warned", set())
    monkeypatch.delenv("TILE_MLIR_SIM_MAX_SECONDS", raising=False)
    monkeypatch.setenv("TILE_SIM_MAX_SECONDS", "2.5")
    with pytest.warns(DeprecationWarning):
        assert launch.budget(None, None) == (None, 2.5)
