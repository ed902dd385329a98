"""The compile cache (runtime/cache.py): memory and disk hits, what the disk key depends on, damaged
entries, the directory (environment override, platform defaults), turning it off, atomic writes.
Every test has its own cache directory (conftest.compile_cache_dir)."""
import json
import logging
import os
import subprocess
import sys
import types

import pytest

import tile_mlir
from conftest import ROOT, fake_artifact
from tile_mlir.runtime import cache, jit

TEXT = "tile.func @copy() {}  // test_cache"


@pytest.fixture
def compiles(monkeypatch):
    """A fake tile_mlir.driver.compiler recording its calls; the memory cache starts empty."""
    calls = []

    def fake_compile(src, arch="sm_100a", **options):
        calls.append((src, arch, options))
        return fake_artifact(arch, key="", meta={"outputs": ["dst"], "n": len(calls)})

    fake = types.ModuleType("tile_mlir.driver.compiler")
    fake.compile = fake_compile
    monkeypatch.setitem(sys.modules, "tile_mlir.driver.compiler", fake)
    import tile_mlir.driver
    monkeypatch.setattr(tile_mlir.driver, "compiler", fake, raising=False)
    monkeypatch.setattr(cache, "_memory", {})
    monkeypatch.setattr(cache, "_stats", {"compiles": 0, "hits": 0, "disk_hits": 0})
    return calls


def entries(directory):
    return sorted(os.listdir(directory)) if os.path.isdir(directory) else []


def test_memory_then_disk_hit(compiles, compile_cache_dir):
    a1 = cache.compile_cached(TEXT, "sm_90a")
    assert len(compiles) == 1 and a1.key
    key = cache.disk_key(TEXT, "sm_90a", {})
    assert entries(compile_cache_dir) == [key + ".json"]
    assert cache.compile_cached(TEXT, "sm_90a") is a1  # memory
    cache.clear()  # as a new process would start
    a2 = cache.compile_cached(TEXT, "sm_90a")
    assert len(compiles) == 1  # disk
    assert a2 == a1 and a2.meta == a1.meta and a2.cubin == a1.cubin and a2.ptx == a1.ptx
    assert cache.stats()["compiles"] == 1 and cache.stats()["hits"] == 1
    assert cache.stats()["disk_hits"] == 1 and cache.stats()["dir"] == str(compile_cache_dir)


def test_jit_compiles_once_across_processes(compiles, fake_sim):
    jit(TEXT, arch="sm_90a", backend="sim")
    cache.clear()
    k = jit(TEXT, arch="sm_90a", backend="sim")
    assert len(compiles) == 1 and k.artifact.meta["n"] == 1


def test_real_compile_round_trip(compile_cache_dir, monkeypatch):
    pytest.importorskip("tile_mlir.driver.compiler", reason="the MLIR bindings are not installed")
    monkeypatch.setattr(cache, "_memory", {})
    with open(os.path.join(ROOT, "examples", "demo.mlir")) as f:
        text = f.read()
    a1 = cache.compile_cached(text, "sm_100a")
    cache.clear()
    compiled = []
    from tile_mlir.driver import compiler
    monkeypatch.setattr(compiler, "compile", lambda *a, **k: compiled.append(a))
    a2 = cache.compile_cached(text, "sm_100a")
    assert not compiled and a2 == a1 and a2.cubin == a1.cubin and a2.meta == a1.meta


def test_key_depends_on_ir_arch_options_and_toolchain(monkeypatch):
    base = cache.disk_key(TEXT, "sm_90a", {})
    assert base == cache.disk_key(TEXT, "sm_90a", {}) and len(base) == 64
    others = {cache.disk_key(TEXT + " ", "sm_90a", {}), cache.disk_key(TEXT, "sm_100a", {}),
              cache.disk_key(TEXT, "sm_90a", {"emit": ["ptx"]}),
              cache.disk_key(TEXT, "sm_90a", {"kernel": "copy"})}
    assert base not in others and len(others) == 4
    assert cache.disk_key(TEXT, "sm_90a", {"a": 1, "b": 2}) == \
        cache.disk_key(TEXT, "sm_90a", {"b": 2, "a": 1})
    monkeypatch.setattr(cache, "_toolchain", lambda: "another tile_mlir or LLVM")
    assert cache.disk_key(TEXT, "sm_90a", {}) != base


def test_line_info_keys_the_file_name_and_a_modules_locations(compiles, compile_cache_dir, tmp_path):
    # with line info the PTX's `.file` / `.loc` come from the file name and the locations: one IR text
    # from two files, or from a file and a module without locations, is not one artifact
    a, b = tmp_path / "a.mlir", tmp_path / "b.mlir"
    a.write_text(TEXT)
    b.write_text(TEXT)
    cache.compile_cached(str(a), "sm_90a")
    cache.compile_cached(str(b), "sm_90a")
    assert len(compiles) == 1  # no line info: the text alone
    cache.compile_cached(str(a), "sm_90a", line_info=True)
    cache.compile_cached(str(b), "sm_90a", line_info=True)
    cache.compile_cached(str(a), "sm_90a", line_info=True)
    assert len(compiles) == 3 and len(entries(compile_cache_dir)) == 3
    pytest.importorskip("tile_mlir.driver.compiler", reason="the MLIR bindings are not installed")
    from tile_mlir.frontend.context import make_context
    from tile_mlir.mlir import ir
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()  # prints as an empty module's file would
    c = tmp_path / "c.mlir"
    c.write_text(str(module))
    cache.compile_cached(str(c), "sm_90a", line_info=True)
    cache.compile_cached(module, "sm_90a", line_info=True)
    assert len(compiles) == 5


def test_options_reach_the_compiler_and_the_key(compiles, compile_cache_dir):
    cache.compile_cached(TEXT, "sm_90a")
    cache.compile_cached(TEXT, "sm_90a", kernel="copy")
    cache.compile_cached(TEXT, "sm_100a")
    assert [(c[1], c[2]) for c in compiles] == [("sm_90a", {}), ("sm_90a", {"kernel": "copy"}),
                                                ("sm_100a", {})]
    assert len(entries(compile_cache_dir)) == 3


def test_toolchain_fingerprint_finds_bindings_without_importing_them():
    code = ("import importlib.util, sys; from tile_mlir.runtime import cache; cache._toolchain(); "
            "libs = cache._binding_libraries(); "
            "assert not [m for m in sys.modules if m.startswith(('cutlass', 'mlir', 'tile_mlir.mlir'))]; "
            "assert bool(libs) == bool(importlib.util.find_spec('cutlass') or "
            "importlib.util.find_spec('mlir')), libs")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def _damage_truncate(path):
    data = open(path, "rb").read()
    open(path, "wb").write(data[: len(data) // 2])


def _damage_garbage(path):
    open(path, "wb").write(os.urandom(256))


def _damage_empty(path):
    open(path, "wb").close()


def _damage_ptx(path):
    e = json.load(open(path))
    e["ptx"] = e["ptx"].replace("fake", "FAKE")
    json.dump(e, open(path, "w"))


def _damage_manifest(path):
    e = json.load(open(path))
    e["manifest"]["params"] = "not a list"
    json.dump(e, open(path, "w"))


def _damage_not_an_object(path):
    json.dump([1, 2, 3], open(path, "w"))


@pytest.mark.parametrize("damage", [_damage_truncate, _damage_garbage, _damage_empty,
                                    _damage_ptx, _damage_manifest, _damage_not_an_object],
                         ids=lambda f: f.__name__[len("_damage_"):])
def test_damaged_entry_is_ignored_and_replaced(compiles, compile_cache_dir, damage, caplog):
    cache.compile_cached(TEXT, "sm_90a")
    path = compile_cache_dir / (cache.disk_key(TEXT, "sm_90a", {}) + ".json")
    damage(path)
    cache.clear()
    caplog.set_level(logging.WARNING, logger="tile_mlir.runtime")
    art = cache.compile_cached(TEXT, "sm_90a")
    assert len(compiles) == 2 and art.ptx == "// fake ptx\n"
    assert "ignoring compile cache entry" in caplog.text and "recompiling" in caplog.text
    cache.clear()
    assert cache.compile_cached(TEXT, "sm_90a") == art and len(compiles) == 2  # rewritten whole


def test_entry_under_another_key_is_ignored(compiles, compile_cache_dir):
    cache.compile_cached(TEXT, "sm_90a")
    src = compile_cache_dir / (cache.disk_key(TEXT, "sm_90a", {}) + ".json")
    dst = compile_cache_dir / (cache.disk_key(TEXT, "sm_100a", {}) + ".json")
    dst.write_bytes(src.read_bytes())
    cache.compile_cached(TEXT, "sm_100a")
    assert [c[1] for c in compiles] == ["sm_90a", "sm_100a"]


def test_environment_override(compiles, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv(cache.DIR_ENV, "~/elsewhere")
    assert cache.cache_dir() == str(tmp_path / "elsewhere")
    cache.compile_cached(TEXT, "sm_90a")
    assert len(entries(tmp_path / "elsewhere")) == 1
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(cache.DIR_ENV, "relative")
    assert cache.cache_dir() == str(tmp_path / "relative")


def test_platform_defaults(monkeypatch, tmp_path):
    monkeypatch.delenv(cache.DIR_ENV)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(cache.sys, "platform", "linux")
    assert cache.cache_dir() == str(tmp_path / "xdg" / "tile_mlir")
    monkeypatch.setenv("XDG_CACHE_HOME", "not/absolute")  # the XDG spec: ignore a relative path
    assert cache.cache_dir() == str(tmp_path / ".cache" / "tile_mlir")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache.cache_dir() == str(tmp_path / ".cache" / "tile_mlir")
    monkeypatch.setattr(cache.sys, "platform", "darwin")
    assert cache.cache_dir() == str(tmp_path / "Library" / "Caches" / "tile_mlir")
    monkeypatch.setattr(cache.sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "Local"))
    with monkeypatch.context() as m:
        m.setattr(cache.os, "name", "nt")
        where = cache.cache_dir()
    assert where == os.path.join(str(tmp_path / "Local"), "tile_mlir")


@pytest.mark.parametrize("value", ["0", "off", "False", " no "])
def test_disabled(compiles, compile_cache_dir, monkeypatch, value):
    monkeypatch.setenv(cache.SWITCH_ENV, value)
    assert cache.cache_dir() is None
    a = cache.compile_cached(TEXT, "sm_90a")
    assert cache.compile_cached(TEXT, "sm_90a") is a and len(compiles) == 1  # memory still
    cache.clear()
    cache.compile_cached(TEXT, "sm_90a")
    assert len(compiles) == 2 and entries(compile_cache_dir) == []


def test_unwritable_directory_costs_only_the_compile(compiles, monkeypatch, tmp_path, caplog):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(cache.DIR_ENV, str(blocker / "cache"))  # cannot be created
    caplog.set_level(logging.WARNING, logger="tile_mlir.runtime")
    art = cache.compile_cached(TEXT, "sm_90a")
    assert art.kernel_name == "selftest_copy_u8" and "could not write" in caplog.text


def test_failed_write_leaves_no_temporary_file(compiles, compile_cache_dir, monkeypatch):
    def refuse(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(cache.os, "replace", refuse)
    cache.compile_cached(TEXT, "sm_90a")
    assert entries(compile_cache_dir) == []


def test_entries_are_hex_names_in_the_directory(compiles, compile_cache_dir):
    for arch in ("sm_90a", "sm_100a"):
        cache.compile_cached("// ../../escape " + TEXT, arch, kernel="../x")
    names = entries(compile_cache_dir)
    assert len(names) == 2
    assert all(n.endswith(".json") and len(n) == 69 and int(n[:64], 16) >= 0 for n in names)
