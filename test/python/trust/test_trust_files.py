"""Issue 36 classes 2, 4 and 12: one reading path (safe_io.read_file: a regular file, a size bound, UTF-8
text) for every file opened for a user, and one writing path (safe_io.write_files: no symbolic link
followed out of the directory, bounded names) for every directory written into."""
from __future__ import annotations

import os
import sys
import threading

import numpy as np
import pytest

import tile_mlir
from tile_mlir.frontend import safe_io
from tile_mlir.artifact import Artifact
from tile_mlir.errors import ArgumentError, TileMLIRError
from tile_mlir.runtime import tile_run
from tile_mlir.frontend.safe_io import NAME_MAX, FileReadError, file_stem, read_file, write_files

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DEMO = open(os.path.join(ROOT, "examples", "demo.mlir")).read()


def within(seconds, fn, *args, **kwargs):
    """fn(*args) in a thread that must end within `seconds` (a FIFO opened for reading blocks forever)."""
    out = {}

    def body():
        try:
            out["value"] = fn(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001
            out["error"] = e
    t = threading.Thread(target=body, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"{fn.__name__} blocked"
    if "error" in out:
        raise out["error"]
    return out["value"]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    d = tmp_path_factory.mktemp("art")
    art = tile_mlir.compile(DEMO, arch="sm_100a")
    return art, art.save(str(d))


def _copy(saved, tmp_path, replace: str, make):
    """The saved artifact copied to tmp_path, its `replace` file (.json, .ptx or .cubin) made by make(path)."""
    art, manifest = saved
    base = manifest[:-len(".json")]
    for ext in (".json", ".ptx", ".cubin"):
        dst = tmp_path / ("demo" + ext)
        if ext == replace:
            make(str(dst))
        else:
            dst.write_bytes(open(base + ext, "rb").read())
    return str(tmp_path / "demo.json")


# -- class 4: Artifact.load and tile-run X.json --------------------------------------------------------------
@pytest.mark.parametrize("ext, make, why", [
    (".ptx", os.mkfifo, "is a FIFO, not a regular file"),
    (".cubin", os.mkfifo, "is a FIFO, not a regular file"),
    (".cubin", lambda p: os.symlink("/dev/zero", p), "is a character device, not a regular file"),
    (".json", lambda p: os.symlink("/dev/urandom", p), "is a character device, not a regular file"),
    (".ptx", os.mkdir, "is a directory, not a regular file"),
    (".ptx", lambda p: open(p, "wb").write(b"//\n.version 8.8 \xff\xfe\n"), r"not UTF-8 text: byte 0xff at offset 16 \(line 2\)"),
    (".json", lambda p: None, "no such file"),
])
def test_artifact_files_of_the_wrong_kind_or_encoding_are_refused(saved, tmp_path, ext, make, why):
    manifest = _copy(saved, tmp_path, ext, make)
    with pytest.raises(FileReadError, match=why) as e:
        within(10, Artifact.load, manifest)
    assert e.value.path.endswith("demo" + ext) and isinstance(e.value, TileMLIRError)


def test_artifact_files_past_the_size_bound_are_refused(saved, tmp_path, monkeypatch):
    manifest = _copy(saved, tmp_path, None, None)
    monkeypatch.setattr("tile_mlir.artifact.MAX_CODE_BYTES", 64)
    with pytest.raises(FileReadError, match=r"demo.ptx: \d+ bytes, more than the 64 it may have"):
        Artifact.load(manifest)


@pytest.mark.parametrize("ext, make", [(".ptx", os.mkfifo), (".cubin", lambda p: os.symlink("/dev/zero", p))])
def test_tile_run_of_a_manifest_beside_a_fifo_or_device_is_one_error_line(saved, tmp_path, capsys, ext, make):
    manifest = _copy(saved, tmp_path, ext, make)
    assert within(20, tile_run.main, [manifest, "--no-run"]) == 1
    err = capsys.readouterr().err
    assert "not a regular file" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("make, why", [(os.mkfifo, "FIFO"), (lambda p: os.symlink("/dev/zero", p), "character device")])
def test_npy_arguments_and_tile_ir_inputs_are_read_safely(tmp_path, make, why):
    p = str(tmp_path / "x.npy")
    make(p)
    with pytest.raises(tile_run.UsageError, match=why):
        within(10, tile_run._load_npy, p, "parameter 'A'")
    q = str(tmp_path / "k.mlir")
    make(q)
    with pytest.raises(ArgumentError, match=why):
        within(10, tile_mlir.compile, q, arch="sm_100a")


def test_read_file_bounds_what_it_reads(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"x" * 100)
    assert read_file(str(p), limit=100) == b"x" * 100
    with pytest.raises(FileReadError, match="100 bytes, more than the 99"):
        read_file(str(p), limit=99)
    os.symlink(p, tmp_path / "link")
    assert read_file(str(tmp_path / "link"), limit=100, text=True) == "x" * 100
    with pytest.raises(FileReadError, match="symbolic link"):
        read_file(str(tmp_path / "link"), limit=100, follow_symlinks=False)


def test_a_cache_entry_linked_to_a_device_is_a_miss(tmp_path, monkeypatch):
    from tile_mlir.runtime import cache

    d = tmp_path / "cache"
    d.mkdir(mode=0o700)
    key = "ab" * 32
    os.symlink("/dev/zero", d / (key + ".json"))
    assert within(10, cache._read, str(d), key) is None
    os.unlink(d / (key + ".json"))
    os.mkfifo(d / (key + ".json"))
    assert within(10, cache._read, str(d), key) is None


# -- class 12: bounded names -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["k" * 300, "a/b/../../c", ".hidden", "\u00e9" * 200])
def test_file_stem_is_bounded_stable_and_distinct(name):
    stem = file_stem(name)
    assert stem == file_stem(name) and len(stem.encode()) <= NAME_MAX - 32
    assert "/" not in stem and not stem.startswith(".")
    assert stem != file_stem(name + "x")
    assert file_stem("plain_name") == "plain_name"


@pytest.mark.parametrize("name", ["k" * 300, "x" * 240 + "_tail"])
def test_a_long_kernel_name_saves_loads_dumps_and_emits(name, tmp_path, monkeypatch, capsys):
    src = DEMO.replace('sym_name = "demo"', f'sym_name = "{name}"')
    art = tile_mlir.compile(src, arch="sm_100a")
    manifest = art.save(str(tmp_path / "saved"))
    assert all(len(f) <= NAME_MAX for f in os.listdir(tmp_path / "saved"))
    assert Artifact.load(manifest).kernel_name == name
    monkeypatch.setenv("TILE_MLIR_DUMP_DIR", str(tmp_path / "dump"))
    tile_mlir.compile(src, arch="sm_100a")
    assert any(f.endswith(".json") for f in os.listdir(tmp_path / "dump"))
    monkeypatch.delenv("TILE_MLIR_DUMP_DIR")
    k = tmp_path / "k.mlir"
    k.write_text(src)
    assert tile_run.main([str(k), "--arch", "sm_100a", "--no-run", "--emit-artifact", str(tmp_path / "ship")]) == 0
    assert [f for f in os.listdir(tmp_path / "ship") if f.endswith(".json")]


def test_write_files_refuses_a_name_past_name_max(tmp_path):
    with pytest.raises(ArgumentError, match="longer than the 255 bytes"):
        write_files(str(tmp_path), {"n" * 256: b""})
    assert os.listdir(tmp_path) == []


# -- class 2: --mlir-print-ir-tree-dir ------------------------------------------------------------------------
def _tree_dump(directory) -> tuple[int, str]:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tools"))
    from test_tile_opt import GOOD, tile_opt
    src = os.path.join(os.path.dirname(directory), "in.mlir")
    os.makedirs(os.path.dirname(src), exist_ok=True)
    with open(src, "w") as f:
        f.write(GOOD)
    rc, _, err = tile_opt([src, "--tile-verify", "--canonicalize", "--mlir-print-ir-after-all",
                           f"--mlir-print-ir-tree-dir={directory}"])
    return rc, err


@pytest.mark.parametrize("target", ["file", "dangling"])
def test_print_ir_tree_dir_does_not_follow_links_out(tmp_path, target):
    clean = tmp_path / "clean" / "tree"
    assert _tree_dump(str(clean))[0] == 0
    names = sorted(os.listdir(clean))
    assert names and all(n.endswith(".mlir") for n in names)
    victim = tmp_path / "victim.txt"
    if target == "file":
        victim.write_text("keep me")
    trap = tmp_path / "trap" / "tree"
    trap.mkdir(parents=True)
    for n in names:
        os.symlink(victim, trap / n)
    rc, err = _tree_dump(str(trap))
    assert "is a symbolic link" in err and "Traceback" not in err
    assert (victim.read_text() == "keep me") if target == "file" else not victim.exists()
    assert all(os.path.islink(trap / n) for n in names)
