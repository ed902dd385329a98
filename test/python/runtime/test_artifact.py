"""Artifacts made from data: names checked (Python identifiers, PTX kernel names), manifests validated
field by field, files written only inside their directory (tile-run --emit-artifact)."""
import json
import os

import numpy as np
import pytest

from conftest import ARTIFACTS, fake_artifact, load_selftest
from tile_mlir.artifact import Artifact, Param
from tile_mlir.errors import ArgumentError, ArgumentTypeError
from tile_mlir.runtime.tile_run import main

COPY = os.path.join(ARTIFACTS, "selftest_copy_u8.json")


def manifest_with(tmp_path, **fields):
    """A copy of the copy self-test's manifest (and code) with ``fields`` replaced."""
    d = json.load(open(COPY))
    d.update(fields)
    base = tmp_path / "in" / "m"
    base.parent.mkdir(exist_ok=True)
    base.with_suffix(".json").write_text(json.dumps(d))
    for ext in (".ptx", ".cubin"):
        base.with_suffix(ext).write_bytes(open(COPY[:-5] + ext, "rb").read())
    return str(base.with_suffix(".json"))


@pytest.mark.parametrize("name", ["../../../escape", "/tmp/abs", "a/b", "..", "a.b", "", "9lives"])
def test_emit_artifact_refuses_kernel_names_that_are_no_ptx_identifiers(tmp_path, capsys, name):
    """`tile-run MANIFEST.json --no-run --emit-artifact DIR` wrote to DIR/<kernel_name>."""
    out = tmp_path / "out"
    rc = main([manifest_with(tmp_path, kernel_name=name), "--no-run", "--emit-artifact", str(out)])
    err = capsys.readouterr().err
    assert rc == 1 and "is not a PTX identifier" in err, err
    assert not out.exists() and os.listdir(tmp_path) == ["in"]


def test_save_refuses_a_path_that_resolves_outside(tmp_path):
    art = load_selftest("selftest_copy_u8")
    d = tmp_path / "d"
    d.mkdir()
    (d / "selftest_copy_u8.json").symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(ArgumentError, match="resolves outside"):
        art.save(d)
    assert not (tmp_path / "elsewhere.json").exists() and not (d / "selftest_copy_u8.ptx").exists()
    path = art.save(tmp_path / "ok")  # os.PathLike
    assert Artifact.load(path) == art


@pytest.mark.parametrize("field,value,msg", [
    ("params", [{"name": "../x", "kind": "buffer", "dtype": "uint8"}], "not a Python identifier"),
    ("params", [{"name": "class", "kind": "buffer", "dtype": "uint8"}], "is a keyword"),
    ("params", [{"name": "block", "kind": "scalar", "dtype": "int32"}], "grid"),
    ("params", [{"name": "a", "kind": "tensor", "dtype": "uint8"}], "kind must be one of"),
    ("params", [{"name": "a", "kind": "buffer", "dtype": "uint8", "shape": [-1]}], "ints >= 0"),
    ("params", [{"name": "a", "kind": "buffer", "dtype": "uint8", "bits": 9}], "bits must be"),
    ("params", [{"name": "a", "kind": "buffer", "dtype": "uint8"}] * 2, "names repeat"),
    ("params", "src", "must be a list"),
    ("block", [128, 1], "3 ints >= 1"),
    ("dynamic_smem", "0", "must be int"),
    ("meta", {"outputs": ["nope"]}, "must list parameter names"),
])
def test_manifest_fields_are_validated(tmp_path, field, value, msg):
    with pytest.raises(ArgumentError, match=msg):
        Artifact.load(manifest_with(tmp_path, **{field: value}))


def test_manifest_missing_field_and_bad_json(tmp_path):
    d = json.load(open(COPY))
    del d["arch"]
    with pytest.raises(ArgumentError, match="manifest has no field 'arch'"):
        Artifact.from_manifest(d, "", b"")
    with pytest.raises(ArgumentTypeError, match="is a JSON object"):
        Artifact.from_manifest([], "", b"")
    p = manifest_with(tmp_path)
    open(p, "w").write("{")
    with pytest.raises(ArgumentError, match="not a JSON manifest"):
        Artifact.load(p)


def test_packed_param_round_trips_through_a_manifest():
    p = Param("a", "buffer", "float6_e3m2fn", (32, 10), bits=6)
    assert p.packed_shape == (240,)  # rows end mid-byte: one flat byte array
    assert Param("b", "buffer", "float4_e2m1fn", (4, 16), 4).packed_shape == (4, 8)
    art = fake_artifact(params=(p,), meta={"outputs": ["a"]})
    back = Artifact.from_manifest(json.loads(json.dumps(art.manifest())), art.ptx, art.cubin)
    assert back == art and back.params[0].bits == 6 and back.outputs == ("a",)
    assert fake_artifact(meta={}).outputs == ("src", "dst")  # unrecorded: every buffer


def test_output_dir_names_come_from_checked_params(tmp_path, capsys, fake_sim):
    rc = main([COPY, "--backend", "sim", "-i", "n=1", "--output-dir", str(tmp_path / "o"),
               "--print", "none"])
    assert rc == 0 and os.listdir(tmp_path / "o") == ["dst.npy"]
    assert np.load(tmp_path / "o" / "dst.npy").shape == (4096,)
