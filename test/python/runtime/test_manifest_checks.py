"""Issue #22 class 4: a manifest's tensor-map records are checked against the kernel's parameters and
its PTX when an Artifact is built from it (a record for another buffer, of other dims or strides, of
another element size, or a count the PTX does not take, ran with wrong output or overwrote an input)."""
import dataclasses
import json
import os

import pytest

import tile_mlir
from conftest import ROOT
from tile_mlir import ArgumentError
from tile_mlir.artifact import Artifact


@pytest.fixture(scope="module")
def tma_art():
    text = open(os.path.join(ROOT, "test", "Target", "PTX", "subview-tma.mlir")).read()
    return tile_mlir.compile(text, arch="sm_100a")


def reload(art, edit):
    m = json.loads(json.dumps(art.manifest()))
    edit(m)
    return Artifact.from_manifest(m, art.ptx, art.cubin)


def test_round_trip_passes(tma_art):
    assert tma_art.tensor_maps
    assert reload(tma_art, lambda m: None).tensor_maps == tma_art.tensor_maps


def _first(m):
    return m["tensor_maps"][0]


@pytest.mark.parametrize("edit,match", [
    (lambda m: _first(m).update(global_dim=[d * 2 for d in _first(m)["global_dim"]]), "is not the buffer's shape"),
    (lambda m: _first(m).update(global_strides=[s + 16 for s in _first(m)["global_strides"]]), "contiguous buffer"),
    (lambda m: _first(m).update(buffer="nope"), "not a buffer parameter"),
    (lambda m: m["tensor_maps"].append(dict(_first(m))), "tensor maps, its PTX takes"),
    (lambda m: m["tensor_maps"].pop(), "tensor maps, its PTX takes"),
])
def test_record_that_disagrees_is_refused(tma_art, edit, match):
    with pytest.raises(ArgumentError, match=match):
        reload(tma_art, edit)


def test_record_of_another_element_size_is_refused(tma_art):
    size = {1: "float32", 2: "uint8", 4: "uint8"}[tma_art.tensor_maps[0].elem_bytes]

    def edit(m):
        name = _first(m)["buffer"]
        for p in m["params"]:
            if p["name"] == name:
                p["dtype"] = size
    with pytest.raises(ArgumentError, match="elements are"):
        reload(tma_art, edit)


# -- digests: a manifest bound to its code (manifest.check_digests) -----------------------------------


def _saved(art, tmp_path):
    path = art.save(str(tmp_path))
    return path, json.loads(open(path).read())


def _rewrite(path, m):
    with open(path, "w") as f:
        json.dump(m, f)


def test_saved_manifest_records_digests_and_loads(tma_art, tmp_path):
    path, m = _saved(tma_art, tmp_path)
    assert set(m["digests"]) == {"ptx", "cubin", "params", "tensor_maps", "launch"}
    assert Artifact.load(path).tensor_maps == tma_art.tensor_maps


@pytest.mark.parametrize("edit,part", [
    (lambda m: _first(m).update(swizzle="none" if _first(m)["swizzle"] != "none" else "128b"), "tensor-map records"),
    (lambda m: _first(m).update(box_dim=[d // 2 for d in _first(m)["box_dim"]]), "tensor-map records"),
    (lambda m: m["tensor_maps"].reverse() or m["tensor_maps"].__setitem__(0, m["tensor_maps"][0]), "tensor-map records"),
    (lambda m: m.update(block=[64, 1, 1]), "kernel name, arch and launch shape"),
    (lambda m: m.update(grid=[1, 1, 1]), "kernel name, arch and launch shape"),
    (lambda m: m["meta"].update(outputs=[]), "parameters and outputs"),
])
def test_manifest_edited_after_saving_is_refused_by_name(tma_art, tmp_path, edit, part):
    path, m = _saved(tma_art, tmp_path)
    before = json.dumps(m, sort_keys=True)
    edit(m)
    if json.dumps(m, sort_keys=True) == before:
        pytest.skip("the edit changes nothing for this artifact")
    _rewrite(path, m)
    with pytest.raises(ArgumentError, match=rf"digest mismatch: the {part}"):
        Artifact.load(path)


def test_code_from_another_build_is_refused_by_name(tma_art, tmp_path):
    path, _ = _saved(tma_art, tmp_path)
    base = path[:-len(".json")]
    with open(base + ".ptx", "a") as f:
        f.write("\n// another build\n")
    with pytest.raises(ArgumentError, match=r"digest mismatch: the PTX \(ptx\)"):
        Artifact.load(path)
    tma_art.save(str(tmp_path))
    with open(base + ".cubin", "ab") as f:
        f.write(b"\0")
    with pytest.raises(ArgumentError, match=r"digest mismatch: the cubin \(cubin\)"):
        Artifact.load(path)


@pytest.mark.parametrize("bad", ["x", [], {"ptx": "0"}, None])
def test_malformed_digests_are_refused(tma_art, tmp_path, bad):
    path, m = _saved(tma_art, tmp_path)
    if bad is None:  # stripped (or saved before digests existed)
        del m["digests"]
        _rewrite(path, m)
        with pytest.raises(ArgumentError, match="manifest has no field 'digests'"):
            Artifact.load(path)
        return
    m["digests"] = bad
    _rewrite(path, m)
    with pytest.raises(ArgumentError, match="manifest field 'digests' must map"):
        Artifact.load(path)


def test_tile_run_names_the_mismatch_without_a_traceback(tma_art, tmp_path, capsys):
    from tile_mlir.runtime.tile_run import main

    path, m = _saved(tma_art, tmp_path)
    m["block"] = [64, 1, 1]
    _rewrite(path, m)
    assert main([path, "--backend", "sim"]) != 0
    err = capsys.readouterr().err
    assert "digest mismatch: the kernel name, arch and launch shape" in err
    assert "Traceback" not in err


def test_manifest_nested_past_the_json_parser_is_refused(tma_art, tmp_path):
    """(the adversary's surface campaign: json.loads raised RecursionError through Artifact.load)"""
    path, _ = _saved(tma_art, tmp_path)
    with open(path, "w") as f:
        f.write("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ArgumentError, match="not a JSON manifest"):
        Artifact.load(path)
