"""Issue #22: tile-run's scalars are numbers first (`-i n=16` loaded a file named 16 when one existed);
files only as @FILE or FILE.npy; --output-dir writes through safe_io (it followed a symlink out of the
directory)."""
import os

import numpy as np

from conftest import ARTIFACTS
from tile_mlir.runtime import tile_run
from tile_mlir.runtime.tile_run import main

COPY = os.path.join(ARTIFACTS, "selftest_copy_u8.json")


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_scalar_is_a_number_even_where_a_file_of_that_name_exists(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    np.save("16", np.array(99, np.uint32))
    os.rename("16.npy", "16")
    n = next(p for p in tile_run._load_artifact(COPY, "auto", {}).params if p.name == "n")
    assert tile_run._value_for(n, "16") == 16
    assert tile_run._value_for(n, "@16") == 99  # a file only when named so


def test_scalar_from_npy_and_buffer_needs_an_explicit_file(tmp_path):
    art = tile_run._load_artifact(COPY, "auto", {})
    n, src = (next(p for p in art.params if p.name == k) for k in ("n", "src"))
    np.save(tmp_path / "n.npy", np.array(7, np.uint32))
    assert tile_run._value_for(n, str(tmp_path / "n.npy")) == 7
    (tmp_path / "raw").write_bytes(b"")
    for bad, what in ((str(tmp_path / "raw"), "is not a uint32 number (to read a .npy file, write @FILE)"),):
        try:
            tile_run._value_for(n, bad)
        except tile_run.UsageError as e:
            assert what in str(e)
        else:
            raise AssertionError("accepted")
    try:
        tile_run._value_for(src, str(tmp_path / "raw"))
    except tile_run.UsageError as e:
        assert "give a .npy file (FILE.npy or @FILE)" in str(e)


def test_output_dir_does_not_follow_a_symlink_out(capsys, tmp_path, fake_sim):
    out_dir, outside = tmp_path / "out", tmp_path / "outside.npy"
    out_dir.mkdir()
    outside.write_bytes(b"precious")
    (out_dir / "dst.npy").symlink_to(outside)
    rc, _, err = run(capsys, COPY, "--backend", "sim", "--input", "n=64", "--output-dir", str(out_dir),
                     "--print", "none")
    assert rc == 1 and "is a symbolic link" in err and "not written" in err
    assert outside.read_bytes() == b"precious"


def test_output_dir_writes_whole_files(capsys, tmp_path, fake_sim):
    rc, _, err = run(capsys, COPY, "--backend", "sim", "--input", "n=64", "--output-dir", str(tmp_path / "o"),
                     "--print", "none")
    assert rc == 0, err
    assert os.listdir(tmp_path / "o") == ["dst.npy"] and np.load(tmp_path / "o" / "dst.npy").shape == (4096,)
