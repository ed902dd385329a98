"""Issue #22 class 6: what the compile cache trusts. Entries are regular files opened without following
symlinks or blocking, size-capped (a FIFO blocked jit() forever, a symlink to /dev/zero read until
MemoryError); the directory is created 0700 and refused, with a warning and a compile without the
disk cache, when another user owns it or group or others may write it."""
import logging
import os
import stat
import sys
import threading
import types

import pytest

import tile_mlir
from conftest import fake_artifact
from tile_mlir.runtime import cache

TEXT = "tile.func @copy() {}  // test_cache_trust"


@pytest.fixture
def compiles(monkeypatch):
    calls = []

    def fake_compile(src, arch="sm_100a", **options):
        calls.append(src)
        return fake_artifact(arch, key="", meta={"outputs": ["dst"]})

    fake = types.ModuleType("tile_mlir.driver.compiler")
    fake.compile = fake_compile
    monkeypatch.setitem(sys.modules, "tile_mlir.driver.compiler", fake)
    import tile_mlir.driver
    monkeypatch.setattr(tile_mlir.driver, "compiler", fake, raising=False)
    monkeypatch.setattr(cache, "_memory", {})
    monkeypatch.setattr(cache, "_refused", set())
    return calls


def entry_path(directory):
    return os.path.join(directory, cache.disk_key(TEXT, "sm_90a", {}) + ".json")


def compile_within(seconds=30):
    """compile_cached on a thread: a hang fails the test instead of blocking it."""
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("art", cache.compile_cached(TEXT, "sm_90a")), daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "compile_cached blocked on the cache entry"
    return out["art"]


def test_directory_is_created_private(compiles, compile_cache_dir):
    compile_within()
    assert stat.S_IMODE(os.stat(compile_cache_dir).st_mode) == 0o700


@pytest.mark.parametrize("kind", ["fifo", "symlink to a fifo", "symlink to /dev/zero", "huge sparse file",
                                  "directory"])
def test_entry_that_is_not_a_small_regular_file_is_a_logged_miss(kind, compiles, compile_cache_dir, tmp_path,
                                                                 caplog):
    os.makedirs(compile_cache_dir, 0o700)
    path = entry_path(str(compile_cache_dir))
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink to a fifo":
        os.mkfifo(tmp_path / "fifo")
        os.symlink(tmp_path / "fifo", path)
    elif kind == "symlink to /dev/zero":
        os.symlink("/dev/zero", path)
    elif kind == "huge sparse file":
        with open(path, "wb") as f:
            f.truncate(cache.MAX_ENTRY_BYTES + 1)
    else:
        os.mkdir(path)
    caplog.set_level(logging.WARNING, logger="tile_mlir.runtime")
    art = compile_within()
    assert art.kernel_name == "selftest_copy_u8" and len(compiles) == 1
    assert "ignoring compile cache entry" in caplog.text


@pytest.mark.skipif(os.name == "nt", reason="POSIX modes")
@pytest.mark.parametrize("mode", [0o770, 0o777, 0o722])
def test_directory_writable_by_others_is_refused_and_the_kernel_still_compiles(mode, compiles, compile_cache_dir,
                                                                              caplog):
    os.makedirs(compile_cache_dir)
    os.chmod(compile_cache_dir, mode)
    caplog.set_level(logging.WARNING, logger="tile_mlir.runtime")
    art = compile_within()
    assert art.kernel_name == "selftest_copy_u8" and len(compiles) == 1
    assert f"writable by group or others (mode {mode:04o})" in caplog.text
    assert os.listdir(compile_cache_dir) == []  # nothing written there
    caplog.clear()
    cache.clear()
    compile_within()
    assert caplog.text == ""  # warned once per directory


@pytest.mark.skipif(os.name == "nt" or os.getuid() != 0, reason="needs root to give the directory away")
def test_directory_owned_by_another_user_is_refused(compiles, compile_cache_dir, caplog):
    os.makedirs(compile_cache_dir, 0o700)
    os.chown(compile_cache_dir, 4242, -1)
    caplog.set_level(logging.WARNING, logger="tile_mlir.runtime")
    compile_within()
    assert "owned by uid 4242" in caplog.text and os.listdir(compile_cache_dir) == []


def test_regular_entry_still_hits(compiles, compile_cache_dir):
    compile_within()
    cache.clear()
    compile_within()
    assert len(compiles) == 1


def test_re_digested_entry_with_an_edited_manifest_is_a_miss(compiles, compile_cache_dir, caplog):
    """An entry whose outer checksum matches is no longer trusted whole: its manifest's own digests
    (manifest.py) refuse an edited launch shape, and the kernel is compiled again."""
    import base64
    import json

    compile_within()
    path = entry_path(str(compile_cache_dir))
    e = json.load(open(path))
    e["manifest"]["block"] = [32, 1, 1]
    e["digest"] = cache._digest(e["manifest"], e["ptx"], base64.b64decode(e["cubin"]))
    with open(path, "w") as f:
        json.dump(e, f)
    cache.clear()
    caplog.set_level(logging.WARNING, logger="tile_mlir.runtime")
    art = compile_within()
    assert len(compiles) == 2 and "digest mismatch" in caplog.text and art.block == (64, 1, 1)
