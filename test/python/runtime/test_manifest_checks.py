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
