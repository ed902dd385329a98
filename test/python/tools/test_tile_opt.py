"""tile-opt driven in-process: TileOptMain(argv, stdout, stderr).run() -> exit code."""
from __future__ import annotations

import io
import sys

import pytest

from tile_mlir.opt.command import VERSION, TileOptMain

GOOD = """"tile.kernel"() ({
  "tile.barrier"() : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "k", block = array<i32: 32, 1, 1>} : () -> ()
"""

BAD_LINE_2 = """"tile.kernel"() ({
  "tile.fence"() {kind = "bogus"} : () -> ()
  "tile.return"() : () -> ()
}) {sym_name = "k", block = array<i32: 32, 1, 1>} : () -> ()
"""
FENCE_ERROR = "'tile.fence' op attributes: attribute 'kind' must be one of"


def tile_opt(argv, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    rc = TileOptMain(list(argv), stdout=out, stderr=err).run()
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture
def write(tmp_path):
    def _write(text: str, name: str = "input.mlir") -> str:
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        return str(p)
    return _write


# -- input and output ---------------------------------------------------------------------------------
def test_reads_stdin_and_prints_the_module(monkeypatch):
    rc, out, err = tile_opt(["--tile-verify"], stdin=GOOD, monkeypatch=monkeypatch)
    assert (rc, err) == (0, "")
    assert out.startswith("module {") and '"tile.barrier"() : () -> ()' in out and 'sym_name = "k"' in out


def test_dash_reads_stdin(monkeypatch):
    rc, out, _ = tile_opt(["-", "--tile-verify"], stdin=GOOD, monkeypatch=monkeypatch)
    assert rc == 0 and '"tile.barrier"' in out


def test_output_file(write, tmp_path):
    dest = tmp_path / "out.mlir"
    rc, out, err = tile_opt([write(GOOD), "--tile-verify", "-o", str(dest)])
    assert (rc, out, err) == (0, "", "")
    text = dest.read_text(encoding="utf-8")
    assert text.startswith("module {") and text.endswith("}\n") and '"tile.barrier"' in text


def test_no_pipeline_just_parses_and_prints(write):
    rc, out, _ = tile_opt([write(GOOD)])
    assert rc == 0 and '"tile.barrier"' in out


def test_missing_input_file(tmp_path):
    rc, out, err = tile_opt([str(tmp_path / "nope.mlir")])
    assert rc == 1 and out == ""
    assert err.startswith("tile-opt: error: cannot read") and "Traceback" not in err


def test_split_input_file_joins_outputs(write):
    two = GOOD + "\n// -----\n" + GOOD.replace('"k"', '"k2"').replace("tile.barrier", "tile.async_wait")
    rc, out, err = tile_opt([write(two), "--split-input-file", "--tile-verify"])
    assert (rc, err) == (0, "")
    first, second = out.split("\n// -----\n")
    assert '"tile.barrier"' in first and 'sym_name = "k"' in first and "async_wait" not in first
    assert '"tile.async_wait"' in second and 'sym_name = "k2"' in second
    assert out.count("module {") == 2


def test_split_input_file_keeps_line_numbers(write):
    two = GOOD + "// -----\n" + BAD_LINE_2
    rc, _, err = tile_opt([write(two), "--split-input-file", "--tile-verify"])
    assert rc == 1
    # the bad fence is on line 2 of the second chunk, which starts after line 5
    assert f":7:3: error: {FENCE_ERROR}" in err


# -- errors ----------------------------------------------------------------------------------------
def test_verifier_error_is_located(write):
    path = write(BAD_LINE_2)
    rc, out, err = tile_opt([path, "--tile-verify"])
    assert rc == 1 and out == ""
    assert err.startswith(f"{path}:2:3: error: {FENCE_ERROR}")


def test_parse_error_is_located(write):
    path = write('"tile.kernel"() ({\n  %x = "tile.thread_id"() : () -> \n}) : () -> ()\n')
    rc, out, err = tile_opt([path, "--tile-verify"])
    assert rc == 1 and out == ""
    assert err.startswith(f"{path}:2:34: error: expected non-function type") and "Traceback" not in err


def test_parse_error_on_stdin(monkeypatch):
    rc, _, err = tile_opt(["--tile-verify"], stdin="func.func @f( {\n", monkeypatch=monkeypatch)
    assert rc == 1 and err.startswith("<stdin>:1:14: error: ")


def test_unknown_pass_is_an_error_without_traceback(write):
    rc, out, err = tile_opt([write(GOOD), "--no-such-pass"])
    assert rc == 1 and out == ""
    assert err.startswith("tile-opt: error: ") and "no-such-pass" in err and "Traceback" not in err


def test_unknown_option_of_our_pass(write):
    rc, _, err = tile_opt([write(GOOD), "--convert-tile-to-nvvm=colour=red"])
    assert rc == 1 and "pass 'convert-tile-to-nvvm' has no option(s) colour" in err


def test_pipeline_and_pass_flags_together_is_an_error(write):
    rc, out, err = tile_opt([write(GOOD), "--pass-pipeline=builtin.module(tile-verify)", "--canonicalize"])
    assert (rc, out) == (1, "")
    assert "use either --pass-pipeline or pass flags, not both" in err


def test_pass_pipeline_text(write):
    rc, out, err = tile_opt([write(GOOD), "-p", "builtin.module(tile-verify,canonicalize)"])
    assert (rc, err) == (0, "") and '"tile.barrier"' in out


# -- informational flags ---------------------------------------------------------------------------
def test_version():
    rc, out, _ = tile_opt(["--version"])
    assert rc == 0 and out.startswith(f"tile-opt {VERSION} (MLIR Python bindings: ")


def test_list_passes_names_our_passes_and_pipelines():
    rc, out, _ = tile_opt(["--list-passes"])
    assert rc == 0
    for name in ("tile-verify", "tile-lower-copy-async", "convert-tile-to-nvvm", "tile-to-nvvm", "tile-to-ptx"):
        assert f"  --{name} " in out
    passes, pipelines = out.split("Pipelines:")
    assert "--tile-verify" in passes and "--tile-to-ptx" in pipelines
    assert "= tile-verify,tile-lower-copy-async,tile-lower-gemm-async,convert-tile-to-nvvm," in pipelines


def test_print_ir_after_all_prints_after_each_pass(write):
    rc, out, err = tile_opt([write(GOOD), "--tile-verify", "--canonicalize", "--mlir-print-ir-after-all"])
    assert rc == 0 and '"tile.barrier"' in out
    banners = [line for line in err.splitlines() if "IR Dump After" in line]
    assert len(banners) == 2, err
    assert "tile-verify" in banners[0] and "canonicalize" in banners[1]
    after_verify = err.split(banners[0], 1)[1].split(banners[1], 1)[0]
    assert '"tile.barrier"() : () -> ()' in after_verify


# -- --verify-diagnostics --------------------------------------------------------------------------
def _kernel(body: str) -> str:
    return f'"tile.kernel"() ({{\n{body}\n  "tile.return"() : () -> ()\n}}) {{sym_name = "k", block = array<i32: 32, 1, 1>}} : () -> ()\n'


BAD_OP = '  "tile.fence"() {kind = "bogus"} : () -> ()'
ERR = "{{attribute 'kind' must be one of}}"


@pytest.mark.parametrize("body", [
    pytest.param(f"{BAD_OP} // expected-error {ERR}", id="same-line"),
    pytest.param(f"  // expected-error@+1 {ERR}\n{BAD_OP}", id="plus-1"),
    pytest.param(f"  // expected-error@+2 {ERR}\n  // a comment between\n{BAD_OP}", id="plus-2"),
    pytest.param(f"{BAD_OP}\n  // expected-error@-1 {ERR}", id="minus-1"),
    pytest.param(f"{BAD_OP}\n\n  // expected-error@above {ERR}", id="above"),
    pytest.param(f"  // expected-error@below {ERR}\n\n{BAD_OP}", id="below"),
    pytest.param(f"  // expected-error @+1 {ERR}\n{BAD_OP}", id="space-before-at"),
    pytest.param(f"  // expected-error@+1    {ERR}\n{BAD_OP}", id="spaces-before-text"),
    pytest.param(f"  // expected-error-re @+1 {{{{must be one of {{{{.*}}}}}}}}\n{BAD_OP}", id="regex-space"),
    pytest.param(f"  // expected-error @unknown {ERR}\n{BAD_OP} loc(unknown)", id="unknown-location"),
    pytest.param(f"  // expected-error-re@+1 {{{{attribute '{{{{[a-z]+}}}}' must be one of {{{{.*}}}}, got 'bogus'}}}}\n{BAD_OP}",
                 id="regex"),
])
def test_verify_diagnostics_expectation_met(write, body):
    rc, out, err = tile_opt([write(_kernel(body)), "--verify-diagnostics", "--tile-verify"])
    assert (rc, out, err) == (0, "", "")


def test_verify_diagnostics_unexpected_error_fails(write):
    path = write(_kernel(BAD_OP))
    rc, out, err = tile_opt([path, "--verify-diagnostics", "--tile-verify"])
    assert (rc, out) == (1, "")
    assert f"{path}:2:3: error: unexpected error: 'tile.fence' op attributes:" in err


def test_verify_diagnostics_missing_expectation_fails(write):
    path = write(_kernel('  // expected-error@+1 {{never produced}}\n  "tile.barrier"() : () -> ()'))
    rc, _, err = tile_opt([path, "--verify-diagnostics", "--tile-verify"])
    assert rc == 1
    assert f'{path}:2: error: expected error "never produced" was not produced (on line 3)' in err


def test_verify_diagnostics_wrong_line_fails_twice(write):
    path = write(_kernel(f"  // expected-error@+2 {ERR}\n{BAD_OP}\n  \"tile.barrier\"() : () -> ()"))
    rc, _, err = tile_opt([path, "--verify-diagnostics", "--tile-verify"])
    assert rc == 1
    assert "unexpected error" in err and "was not produced (on line 4)" in err


def test_verify_diagnostics_wrong_text_fails(write):
    path = write(_kernel(f"  // expected-error@+1 {{{{must be one of, got 'other'}}}}\n{BAD_OP}"))
    rc, _, err = tile_opt([path, "--verify-diagnostics", "--tile-verify"])
    assert rc == 1 and "unexpected error" in err and "was not produced" in err


def test_verify_diagnostics_malformed_expectation(write):
    path = write(_kernel(f"  // expected-error@+1 missing braces\n{BAD_OP}"))
    rc, _, err = tile_opt([path, "--verify-diagnostics", "--tile-verify"])
    assert rc == 1 and f"{path}:2: error: malformed expectation" in err


def test_verify_diagnostics_with_split_input_file(write):
    chunk_ok = _kernel(f"  // expected-error@+1 {ERR}\n{BAD_OP}")
    chunk_bad = _kernel(BAD_OP)
    rc, _, err = tile_opt([write(chunk_ok + "// -----\n" + chunk_bad), "--split-input-file", "--verify-diagnostics",
                           "--tile-verify"])
    assert rc == 1
    # only the second chunk's error is unexpected, reported at its line in the whole file
    assert err.count("unexpected error") == 1 and ":8:3: error: unexpected error" in err


def test_verify_diagnostics_prints_the_ir_of_chunks_that_pass(write):
    """As mlir-opt: a chunk whose pipeline succeeds is printed; one that failed (as expected) is not."""
    rc, out, err = tile_opt([write(GOOD), "--verify-diagnostics", "--tile-verify"])
    assert (rc, err) == (0, "") and out.startswith("module {") and '"tile.barrier"' in out
    failing = _kernel(f"  // expected-error@+1 {ERR}\n{BAD_OP}")
    rc, out, err = tile_opt([write(failing + "// -----\n" + GOOD), "--split-input-file", "--verify-diagnostics"])
    assert (rc, err) == (0, "") and out.count("module {") == 1 and '"tile.barrier"' in out


def test_verify_diagnostics_parse_error_expected(write):
    path = write('// expected-error@+1 {{expected non-function type}}\nfunc.func @f( {\n')
    rc, out, err = tile_opt([path, "--verify-diagnostics"])
    assert (rc, out, err) == (0, "", "")


# -- mlir-opt habits (issue 10) ----------------------------------------------------------------------
def test_verifies_on_parse_without_a_pipeline(write):
    rc, out, err = tile_opt([write(BAD_LINE_2)])
    assert (rc, out) == (1, "") and FENCE_ERROR in err


def test_no_implicit_verify_skips_the_tile_verifier(write):
    rc, out, _ = tile_opt([write(BAD_LINE_2), "--no-implicit-verify"])
    assert rc == 0 and '"tile.fence"' in out


def test_invalid_suite_needs_no_pass_flag():
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[3]
    for path in sorted((root / "test" / "Dialect" / "tile").glob("*invalid.mlir")):
        rc, _, err = tile_opt([str(path), "--split-input-file", "--verify-diagnostics"])
        assert rc == 0, (path.name, err)


@pytest.mark.parametrize("op", ['"tiel.copy_async"() : () -> ()', '"foo.bar"() : () -> ()'])
def test_unregistered_dialect_is_refused(write, op):
    path = write(_kernel("  " + op))
    rc, out, err = tile_opt([path])
    assert (rc, out) == (1, "")
    assert f"{path}:2:3: error: operation '{op[1:op.index(chr(34), 1)]}' belongs to an unregistered dialect" in err


def test_allow_unregistered_dialect(write):
    rc, out, err = tile_opt([write(_kernel('  "foo.bar"() : () -> ()')), "--allow-unregistered-dialect"])
    assert (rc, err) == (0, "") and '"foo.bar"' in out


def test_unknown_flag_is_reported_as_an_unknown_argument(write):
    rc, out, err = tile_opt([write(GOOD), "--tile-verfy"])
    assert (rc, out) == (1, "")
    assert err == ("tile-opt: error: unknown command line argument '--tile-verfy': not a tile-opt option, nor a "
                   "pass or pipeline; try 'tile-opt --help'; did you mean '--tile-verify'?\n")


def test_single_dash_long_flags_as_llvm_reads_them(write):
    rc, out, err = tile_opt([write(GOOD + "// -----\n" + GOOD), "-split-input-file", "-tile-verify", "-canonicalize"])
    assert (rc, err) == (0, "") and out.count("module {") == 2


def test_help_lists_flags_and_passes():
    rc, out, _ = tile_opt(["--help"])
    assert rc == 0
    for flag in ("--allow-unregistered-dialect", "--mlir-print-ir-before-all", "--mlir-timing", "--emit-bytecode",
                 "--show-dialects", "--dump-pass-pipeline", "--mlir-disable-threading", "--mlir-print-debuginfo"):
        assert flag in out
    assert "Passes (tile_mlir):" in out and "  --tile-lower-copy-async " in out and "  --tile-to-ptx " in out


def test_show_dialects():
    rc, out, _ = tile_opt(["--show-dialects"])
    names = out.removeprefix("Available Dialects: ").strip().split(", ")
    assert rc == 0 and {"tile", "nvvm", "llvm", "gpu", "arith", "scf", "func"} <= set(names)


def test_print_ir_before_all_and_after_one_pass(write):
    rc, _, err = tile_opt([write(GOOD), "--tile-verify", "--canonicalize", "--mlir-print-ir-before-all",
                           "--mlir-print-ir-after=canonicalize"])
    banners = [line for line in err.splitlines() if "IR Dump" in line]
    assert rc == 0 and len(banners) == 3, err
    assert "Before TileVerifyPass (tile-verify)" in banners[0] and "Before canonicalize" in banners[1]
    assert "After canonicalize" in banners[2]


def test_print_ir_after_failure(write):
    rc, _, err = tile_opt([write(BAD_LINE_2), "--tile-verify", "--mlir-print-ir-after-failure"])
    assert rc == 1 and "// -----// IR Dump After TileVerifyPass (tile-verify) Failed //----- //" in err
    assert FENCE_ERROR in err


def test_print_debuginfo(write):
    path = write(GOOD)
    rc, out, _ = tile_opt([path, "--mlir-print-debuginfo"])
    assert rc == 0 and f'loc("{path}":2:3)' in out


def test_timing_report(write):
    rc, _, err = tile_opt([write(GOOD), "--tile-verify", "--mlir-timing"])
    assert rc == 0 and "... Execution time report ..." in err
    for row in ("Parser", "TileVerifyPass (tile-verify)", "Output", "Total"):
        assert f"  {row}\n" in err


def test_dump_pass_pipeline(write):
    rc, _, err = tile_opt([write(GOOD), "--canonicalize", "--dump-pass-pipeline"])
    assert rc == 0 and "Pass Manager with 2 passes:\nbuiltin.module(tile-verify,canonicalize)\n" in err


def test_bytecode_round_trip(write, tmp_path):
    bc = tmp_path / "k.mlirbc"
    rc, out, err = tile_opt([write(GOOD), "--emit-bytecode", "-o", str(bc)])
    assert (rc, out, err) == (0, "", "") and bc.read_bytes().startswith(b"ML\xefR")
    rc, out, err = tile_opt([str(bc)])
    assert (rc, err) == (0, "") and '"tile.barrier"' in out


def test_disable_threading_is_accepted(write):
    rc, out, _ = tile_opt([write(GOOD), "--mlir-disable-threading"])
    assert rc == 0 and '"tile.barrier"' in out


def test_non_utf8_input_is_a_clear_error(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_bytes(b'"tile.kernel"() ({\n  \xff\n')
    rc, out, err = tile_opt([str(path)])
    assert (rc, out) == (1, "")
    assert err == f"tile-opt: error: {path}:2:3: invalid UTF-8 byte 0xff: tile IR text must be UTF-8\n"


@pytest.mark.parametrize("where", ["missing/out.mlir", "."])
def test_unwritable_output_is_a_clear_error(write, tmp_path, where):
    rc, _, err = tile_opt([write(GOOD), "-o", str(tmp_path / where)])
    assert rc == 1 and err.startswith(f"tile-opt: error: cannot write '{tmp_path / where}': ")
    assert "Traceback" not in err


def test_implicit_verify_runs_first_even_when_the_pipeline_verifies_later(write):
    rc, _, err = tile_opt([write(GOOD), "--canonicalize", "--tile-verify", "--dump-pass-pipeline"])
    assert rc == 0 and "builtin.module(tile-verify,canonicalize,tile-verify)" in err


def test_empty_chip_option_is_an_error(write):
    rc, _, err = tile_opt([write(GOOD), "--convert-tile-to-nvvm=chip="])
    assert rc == 1 and "option chip: unknown GPU architecture ''" in err


def test_misspelt_tile_op_gets_a_did_you_mean(write):
    path = write(_kernel('  "tiel.barrier"() : () -> ()'))
    rc, _, err = tile_opt([path])
    assert rc == 1 and err == (f"{path}:2:3: error: operation 'tiel.barrier' belongs to an unregistered dialect; "
                               "did you mean 'tile.barrier'?\n")
