"""tile-run: argument parsing, input generation, outputs, dumps and one-line errors."""
import os

import numpy as np
import pytest

from conftest import ARTIFACTS
from tile_mlir.runtime import driver as rt_driver
from tile_mlir.runtime.tile_run import main

COPY = os.path.join(ARTIFACTS, "selftest_copy_u8.json")


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def one_line_error(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("tile-run: error: "), err
    return lines[0]


def test_help(capsys):
    rc, out, _ = run(capsys, "--help")
    assert rc == 0 and "--backend" in out and "--dump-sass" in out


@pytest.mark.parametrize("argv,msg", [
    ((), "the following arguments are required: input"),
    (("missing.json",), "missing.json: no such file"),
    ((COPY, "--backend", "cuda"), "argument --backend: invalid choice"),
    ((COPY, "--input", "nope"), "--input expects NAME=VALUE"),
    ((COPY, "--input", "m=1"), "has no parameter 'm' (parameters: src, dst, n)"),
    ((COPY,), "scalar parameter 'n' (uint32) needs a value: --input n=VALUE"),
    ((COPY, "--input", "n=abc"), "'abc' is not a uint32 number"),
    ((COPY, "--input", "src=7", "--input", "n=1"), "parameter 'src' is a buffer"),
    ((COPY, "a.npy", "b.npy", "1", "2"), "takes 3 arguments (src, dst, n), got 4 values"),
    ((COPY, "--arch", "sm_100a"), "artifact is built for sm_90a, not sm_100a"),
    ((COPY, "--zeros", "q", "--input", "n=1"), "--zeros q"),
])
def test_usage_errors(capsys, argv, msg):
    rc, out, err = run(capsys, *argv)
    assert rc == 1 and msg in one_line_error(err)


def test_not_mlir_or_json(capsys, tmp_path):
    p = tmp_path / "k.txt"
    p.write_text("x")
    rc, _, err = run(capsys, str(p))
    assert rc == 1 and "expected a .mlir file or an artifact manifest .json" in one_line_error(err)


def test_mlir_without_compiler(capsys, tmp_path, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "tile_mlir.driver.compiler", None)  # import fails
    p = tmp_path / "k.mlir"
    p.write_text("module {}")
    rc, _, err = run(capsys, str(p))
    line = one_line_error(err)
    assert rc == 1 and "cannot compile" in line and "artifact manifest (.json)" in line


def test_gpu_backend_without_gpu(capsys, monkeypatch):
    monkeypatch.setattr(rt_driver, "probe", lambda refresh=False: (
        False, "no CUDA device: cuInit failed with CUDA_ERROR_NO_DEVICE"))
    rc, _, err = run(capsys, COPY, "--input", "n=10", "--backend", "gpu")
    assert rc == 1 and "backend='gpu' requested but no CUDA device" in one_line_error(err)


def test_dump_ptx_and_sass_no_run(capsys):
    rc, out, _ = run(capsys, COPY, "--dump-ptx", "--no-run")
    assert rc == 0 and ".entry selftest_copy_u8" in out
    from tile_mlir.runtime.disasm import find_nvdisasm
    if find_nvdisasm() is None:
        rc, _, err = run(capsys, COPY, "--dump-sass", "--no-run")
        assert rc == 1 and "nvdisasm not found" in one_line_error(err)
    else:
        rc, out, _ = run(capsys, COPY, "--dump-sass", "--no-run")
        assert rc == 0 and "LDG.E.U8" in out and "STG.E.U8" in out


def test_dump_sass_missing_tool(capsys, monkeypatch):
    from tile_mlir.runtime import disasm
    monkeypatch.setattr(disasm, "find_nvdisasm", lambda: None)
    rc, _, err = run(capsys, COPY, "--dump-sass", "--no-run")
    assert rc == 1 and "nvdisasm not found: pip install nvidia-cuda-nvdisasm" in one_line_error(err)


def test_emit_artifact(capsys, tmp_path):
    rc, _, _ = run(capsys, COPY, "--emit-artifact", str(tmp_path), "--no-run")
    assert rc == 0 and sorted(os.listdir(tmp_path)) == [
        "selftest_copy_u8.cubin", "selftest_copy_u8.json", "selftest_copy_u8.ptx"]


def test_run_on_sim_generated_inputs(capsys, tmp_path, fake_sim):
    rc, out, err = run(capsys, COPY, "--backend", "sim", "--input", "n=4096", "--seed", "3",
                       "--output-dir", str(tmp_path))
    assert rc == 0, err
    assert "ran on sim" in err
    assert out.startswith("dst = array([") and "dtype=uint8" in out  # only the output buffer
    src = np.random.default_rng(3).integers(0, 256, 4096).astype(np.uint8)
    assert np.array_equal(np.load(tmp_path / "dst.npy"), src)


def test_run_on_sim_npy_inputs_and_summary(capsys, tmp_path, fake_sim):
    src = np.arange(4096, dtype=np.uint32).astype(np.uint8)
    np.save(tmp_path / "src.npy", src)
    np.save(tmp_path / "dst.npy", np.full(4096, 1, np.uint8))
    rc, out, err = run(capsys, COPY, str(tmp_path / "src.npy"), str(tmp_path / "dst.npy"), "100",
                       "--backend", "sim", "--print", "summary")
    assert rc == 0, err
    assert out.startswith("dst: shape=(4096,) dtype=uint8 min=0 max=99") and "sha256=" in out


def test_zeros_marks_outputs(capsys, fake_sim):
    rc, out, err = run(capsys, COPY, "--backend", "sim", "--input", "n=0", "--zeros", "src",
                       "--print", "summary")
    assert rc == 0, err
    lines = out.splitlines()
    assert [ln.split(":")[0] for ln in lines] == ["src", "dst"]
    assert "max=0" in lines[0]
