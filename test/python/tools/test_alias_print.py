"""tile-opt prints buffer-type aliases (issue 23 item 1): repeated `!tile.buffer<...>` types are named
once at the top, the output parses back to the same module, and --no-type-aliases turns it off."""
from __future__ import annotations

import pathlib

import pytest

from tile_mlir.opt.alias_print import buffer_types, with_type_aliases
from tile_mlir.opt.command import TileOptMain

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))


def _tile_opt(*argv, stdin_text=None, tmp_path=None) -> str:
    import io
    out, err = io.StringIO(), io.StringIO()
    argv = list(argv)
    if stdin_text is not None:
        p = tmp_path / "in.mlir"
        p.write_text(stdin_text)
        argv = [str(p), *argv]
    rc = TileOptMain(argv, stdout=out, stderr=err).run()
    assert rc == 0, err.getvalue()
    return out.getvalue()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_round_trip_through_aliases(path, tmp_path):
    full = _tile_opt(str(path), "--no-type-aliases")
    aliased = _tile_opt(str(path))
    assert aliased != full and aliased.startswith("!") and len(aliased) < len(full)
    # every repeated type is named once, and used by its name only
    for line in aliased.splitlines():
        if line.startswith("!"):
            name, _, t = line.partition(" = ")
            assert aliased.count(t) == 1 and aliased.count(name) > 1, line
    assert _tile_opt("--no-type-aliases", stdin_text=aliased, tmp_path=tmp_path) == full


def test_demo_aliases_literally():
    text = _tile_opt(str(ROOT / "examples" / "demo.mlir"))
    head = text.split("module {", 1)[0].splitlines()
    assert head[:3] == ["!global_32x16xui8 = !tile.buffer<global, 32x16xui8>",
                        "!global_128x16xui8 = !tile.buffer<global, 128x16xui8>",
                        '!shared_32x16xui8 = !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]", align 1024>']
    assert "^bb0(%A: !global_32x16xui8, %out: !global_128x16xui8):" in text


def test_strings_comments_and_single_uses_are_left_alone():
    t = '!tile.buffer<shared, 4xi8, "S[4 : 1]">'
    text = (f'%0 = "x"() {{note = "{t.replace(chr(34), chr(92) + chr(34))}"}} : () -> {t}\n'
            f'%1 = "y"() : () -> {t}\n// {t}\n%2 = "z"() : () -> !tile.buffer<global, 8xi8>\n')
    out = with_type_aliases(text)
    assert out.splitlines()[0] == f"!shared_4xi8 = {t}"
    assert out.count("-> !shared_4xi8") == 2
    assert 'note = "!tile.buffer<shared, 4xi8, \\"S[4 : 1]\\">"' in out  # inside a string: unchanged
    assert f"// {t}" in out and "-> !tile.buffer<global, 8xi8>" in out   # a comment; a single use


def test_layout_brackets_inside_the_type_and_distinct_layouts():
    a = '!tile.buffer<shared, 8x64xbf16, "Swizzle<128B> o S[(8, 64) : (64, 1)]", align 1024>'
    b = '!tile.buffer<shared, 8x64xbf16, "S[(8, 64) : (64, 1)]">'
    text = f"{a} {a} {b} {b}\n"
    assert [text[s:e] for s, e in buffer_types(text)] == [a, a, b, b]
    out = with_type_aliases(text)
    assert out.splitlines()[:2] == [f"!shared_8x64xbf16 = {a}", f"!shared_8x64xbf16_1 = {b}"]
    assert out.splitlines()[2] == "!shared_8x64xbf16 !shared_8x64xbf16 !shared_8x64xbf16_1 !shared_8x64xbf16_1"


def test_existing_alias_names_are_not_reused():
    t = "!tile.buffer<global, 4xi8>"
    out = with_type_aliases(f"!global_4xi8 = i32\n{t} {t}\n")
    assert out.startswith(f"!global_4xi8_1 = {t}\n")


def test_no_repeats_no_change():
    text = "%0 = arith.constant 0 : i32\n"
    assert with_type_aliases(text) == text
    assert with_type_aliases("!tile.buffer<global, 4xi8 !tile.buffer<global, 4xi8") .count("!tile") == 2
