"""Issue #10, the compiler's input boundaries: text is UTF-8 and nests at most MAX_NESTING brackets
before MLIR's parser sees it (deeper input overflowed the parser's stack and killed the process), and
arch and PTX features reach pipelines and #nvvm.target only as tokens of target.py's grammars."""
from __future__ import annotations

import pytest

import tile_mlir
from tile_mlir import ArgumentError, TileError
from tile_mlir.frontend.context import SourceError, make_context, parse_source
from tile_mlir.mlir import MLIRError
from tile_mlir.driver.passes import PipelineError, build_pass_manager
from tile_mlir.target import check_ptx_features, parse_arch
from tile_mlir.frontend.text_checks import MAX_NESTING, check_text

EMPTY_KERNEL = ('"tile.kernel"() ({\n  "tile.return"() : () -> ()\n'
                '}) {sym_name = "k", block = array<i32: 32, 1, 1>} : () -> ()\n')


def parse_error(text, filename="in.mlir"):
    """(line, col, message) of the one error parse_source raises for `text`."""
    with pytest.raises(MLIRError) as ei:
        parse_source(text, filename, make_context())
    (d,) = ei.value.error_diagnostics
    return d.location.start_line, d.location.start_col, d.message


# -- nesting ------------------------------------------------------------------------------------------
def nested_modules(n):
    return "module {\n" * n + "}\n" * n


def nested_ifs(n):
    return "func.func @f(%c: i1) {\n" + "scf.if %c {\n" * n + "}\n" * n + "return\n}\n"


@pytest.mark.parametrize("n", [5000, 20000])
def test_deep_modules_are_a_diagnostic_not_a_stack_overflow(n):
    # reproducer: a 45 KB file of 5,000 nested `module {` segfaulted the parser
    line, col, message = parse_error(nested_modules(n))
    assert (line, col) == (MAX_NESTING + 1, 8)
    assert f"at most {MAX_NESTING} deep" in message


def test_compile_of_20000_nested_ifs_raises_instead_of_killing_the_caller():
    with pytest.raises(TileError, match=f"parsing failed:\n<tile>:{MAX_NESTING + 1}:11: error: bracket nested"):
        tile_mlir.compile(nested_ifs(20000))


def deep_col(text, depth):
    """1-based column of the first bracket `depth` deep in a one-line text without strings or arrows."""
    d = 0
    for i, c in enumerate(text):
        d += (c in "{([<") - (c in "})]>")
        if d == depth:
            return i + 1


@pytest.mark.parametrize("text", [
    "module attributes {a.b = " + "[" * 30000 + "]" * 30000 + "} {}",
    "module attributes {a.b = " + "tuple<" * 30000 + "i32" + ">" * 30000 + "} {}",
    "module {} loc(" + "fused[" * 30000 + "unknown" + "]" * 30000 + ")",
], ids=["attribute", "type", "location"])
def test_every_bracket_kind_counts(text):
    # reproducers: 20,000 nested attributes or types also overflowed the parser's stack
    assert parse_error(text)[:2] == (1, deep_col(text, MAX_NESTING + 1))


def test_depth_at_the_limit_parses():
    parse_source(nested_modules(MAX_NESTING), "in.mlir", make_context())
    assert check_text(nested_ifs(MAX_NESTING - 1)) is None
    assert check_text(nested_ifs(MAX_NESTING)) is not None


@pytest.mark.parametrize("noise", [
    '"' + "(" * 1000 + '"',  # brackets in a string
    '"\\"' + "(" * 1000 + '"',  # ... after an escaped quote
    "// " + "{" * 1000,  # in a comment
    "() -> ()" * 1000,  # the > of an arrow closes nothing
])
def test_strings_comments_and_arrows_do_not_count(noise):
    assert check_text(noise + "\n" + EMPTY_KERNEL) is None


def test_long_balanced_input_is_not_refused():
    assert check_text("module {\n" + "  %0 = arith.constant dense<[[1]]> : tensor<1x1xi32>\n" * 20000 + "}\n") is None


# -- decoding -----------------------------------------------------------------------------------------
def test_bytes_are_decoded_with_a_diagnostic_at_the_bad_byte():
    data = EMPTY_KERNEL.encode().replace(b'"k"', b'"\xffk"')
    line, col, message = parse_error(data)
    assert (line, col) == (3, 17)
    assert message == "invalid UTF-8 byte 0xff: tile IR text must be UTF-8"


def test_surrogate_escaped_text_is_a_diagnostic():
    # what reading a file with errors="surrogateescape" leaves for a bad byte
    text = b"module {}\n\xfe\n".decode("utf-8", "surrogateescape")
    assert parse_error(text)[:3] == (2, 1, "invalid UTF-8 byte 0xfe: tile IR text must be UTF-8")


def test_source_error_is_an_mlir_error_with_the_location():
    with pytest.raises(SourceError) as ei:
        parse_source(nested_modules(300), "deep.mlir", make_context())
    assert str(ei.value).startswith(f"deep.mlir:{MAX_NESTING + 1}:8: error: bracket nested")


def test_utf8_bytes_parse():
    op = parse_source(EMPTY_KERNEL.replace("// ", "").encode(), "in.mlir", make_context())
    assert op.name == "builtin.module"


# -- arch and features --------------------------------------------------------------------------------
@pytest.mark.parametrize("arch", ["", "sm_100a} ,x{", "sm_100a,sm_90a", "sm_\uff11\uff10\uff10a", "sm_0100a",
                                  "sm_100a{", "sm_1000a"])
def test_compile_refuses_an_arch_outside_the_grammar(arch):
    with pytest.raises(ArgumentError, match="unknown GPU architecture"):
        tile_mlir.compile(EMPTY_KERNEL, arch=arch)


def test_parse_arch_returns_a_canonical_token():
    assert parse_arch(" sm_90a ").arch == "sm_90a"
    with pytest.raises(TypeError):
        parse_arch(None)


def test_compile_lowers_with_the_canonical_chip():
    art = tile_mlir.compile(EMPTY_KERNEL, arch=" sm_90a ", emit=("ptx",))
    assert ".target sm_90a" in art.ptx


@pytest.mark.parametrize("features", ["+ptx88,+x", "+ptx88 ", "ptx88", "+ptx", '+ptx88">', ""])
def test_ptx_features_outside_the_grammar_are_refused(features):
    with pytest.raises(ValueError, match="PTX features"):
        check_ptx_features(features)


def test_features_option_is_checked_when_the_pipeline_is_built():
    with pytest.raises(PipelineError, match="option features"):
        build_pass_manager("convert-tile-to-nvvm{features=+ptx88,+x}", make_context())


def test_long_number_literals_are_refused_before_parsing():
    from tile_mlir.frontend.text_checks import MAX_NUMBER_LENGTH

    head = '"tile.kernel"() ({\n  "tile.return"() : () -> ()\n}) {sym_name = "k", block = array<i32: 32, '
    problem = check_text(head + "9" * 100_000 + ', 1>} : () -> ()\n')  # minutes in MLIR's parser
    assert (problem.line, problem.col) == (3, len('}) {sym_name = "k", block = array<i32: 32, ') + 1)
    assert f"longer than {MAX_NUMBER_LENGTH} digits" in problem.message
    assert check_text(head + "9" * MAX_NUMBER_LENGTH + ', 1>} : () -> ()\n') is None
    # digits inside a string or a comment are no number literal
    assert check_text(f'// {"1" * 5000}\n"x"() {{s = "{"2" * 5000}"}} : () -> ()\n') is None
