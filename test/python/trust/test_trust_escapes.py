"""Issue #22 class 1: bytes the bindings cannot turn into a str (MLIR's `\\FF` escape in an op name, a
location's file name, a block argument's location, an attribute name) and over-long tokens are
refused before parsing, for text and for bytecode; bytecode's nesting is bounded too. Each of these
aborted (SIGABRT) or segfaulted the process before."""
from __future__ import annotations

import io
import os
import random
import subprocess
import sys

import pytest

import tiers
import tile_mlir
from tile_mlir import TileError
from tile_mlir.opt.bytecode_checks import MAX_REGION_DEPTH, check_bytecode, parse_bytecode
from tile_mlir.frontend.context import SourceError, make_context, parse_source
from tile_mlir.mlir import MLIRError, ir
from tile_mlir.frontend.text_checks import MAX_IDENTIFIER_LENGTH, MAX_STRING_LENGTH, check_string, check_text

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
KERNEL = ('"tile.kernel"() ({\n^bb0(%a: i32 ARGLOC):\n  "tile.return"() : () -> () OPLOC\n'
          '}) {sym_name = "k", ATTR block = array<i32: 32, 1, 1>} : () -> ()\n')


def kernel(argloc="", oploc="", attr=""):
    return KERNEL.replace("ARGLOC", argloc).replace("OPLOC", oploc).replace("ATTR", attr)


CASES = {
    "op name": ('"tile.\\FF"() : () -> ()\n', (1, 1)),
    "location file": (kernel(oploc='loc("f\\FF.mlir":3:4)'), (3, 34)),
    "block argument location": (kernel(argloc='loc("\\c3\\28":1:1)'), (2, 18)),
    "attribute name": (kernel(attr='"x\\FF" = 1 : i32,'), (4, 21)),
    "string in an array": (kernel(attr='x = ["\\80"],'), (4, 26)),
}


@pytest.mark.parametrize("what", CASES)
def test_escaped_non_utf8_byte_is_a_diagnostic_at_the_string(what):
    text, (line, col) = CASES[what]
    with pytest.raises(SourceError) as ei:
        parse_source(text, "in.mlir", make_context())
    (d,) = ei.value.error_diagnostics
    assert (d.location.start_line, d.location.start_col) == (line, col)
    assert "not UTF-8" in d.message and "after unescaping" in d.message


def test_compile_of_an_escaped_op_name_raises_instead_of_aborting():
    with pytest.raises(TileError, match="not UTF-8"):
        tile_mlir.compile('"tile.\\FF"() : () -> ()\n')


def test_valid_escapes_and_utf8_strings_still_parse():
    text = kernel(attr='note = "caf\\C3\\A9 \\22q\\22 \\\\ \\n \u00e9",')
    assert check_text(text) is None
    parse_source(text, "in.mlir", make_context())


def test_tile_opt_process_is_not_killed():
    path = os.path.join(ROOT, "build", "trust-escape.mlir")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(CASES["op name"][0])
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "tile-opt"), path], capture_output=True,
                       text=True, timeout=120, env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    assert r.returncode == 1 and "error: string holds byte 0xff" in r.stderr and "Traceback" not in r.stderr


def test_long_token_is_refused_and_not_echoed():
    text = "module {\n  " + "x" * 5_000_000 + "\n}\n"
    problem = check_text(text)
    assert (problem.line, problem.col) == (2, 3)
    assert f"at most {MAX_IDENTIFIER_LENGTH} characters" in problem.message and len(problem.message) < 200


def test_long_string_is_refused():
    assert "at most" in check_string(b"a" * (MAX_STRING_LENGTH + 1))
    assert check_text(kernel(attr='x = "' + "a" * (MAX_STRING_LENGTH + 1) + '",')).line == 4


# -- bytecode -------------------------------------------------------------------------------------
def bytecode(text, deep=0):
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(text)
        buf = io.BytesIO()
        m.operation.write_bytecode(buf)
    return buf.getvalue()


SAMPLE = '"tile.ab"() {"attrzz" = "valq"} : () -> () loc("fileq":1:1)'


@pytest.mark.parametrize("old,new", [(b"ab\0", b"a\xff\0"), (b"attrzz", b"attr\xff\xfe"),
                                     (b"valq", b"va\xc3("), (b"fileq", b"fil\xffq")])
def test_bytecode_strings_are_checked_before_the_reader(old, new):
    data = bytecode(SAMPLE)
    assert check_bytecode(data) is None and old in data
    bad = data.replace(old, new)
    assert "not UTF-8" in check_bytecode(bad)
    with pytest.raises(SourceError, match="not UTF-8"):
        parse_bytecode(bad, "in.mlirbc", make_context())


def _deep_bytecode(n):
    import threading

    out = {}

    def work():  # text this deep is refused by text_checks: build it on a large stack
        ctx = make_context()
        with ctx:
            m = ir.Module.parse("module {" * n + "}" * n)
            buf = io.BytesIO()
            m.operation.write_bytecode(buf)
            out["data"] = buf.getvalue()
            del m

    old = threading.stack_size(256 << 20)
    try:
        t = threading.Thread(target=work)
        t.start()
    finally:
        threading.stack_size(old)
    t.join()
    return out["data"]


@pytest.mark.slow  # builds and reads a module nested 15,000 regions deep
def test_deeply_nested_bytecode_is_a_diagnostic_not_a_segfault():
    data = _deep_bytecode(15000)  # segfaulted the reader on the main thread
    with pytest.raises(SourceError, match=f"regions nested 14999 deep: tile IR nests regions at most {MAX_REGION_DEPTH}"):
        parse_bytecode(data, "in.mlirbc", make_context())
    ok = parse_bytecode(_deep_bytecode(10), "in.mlirbc", make_context())
    assert ok.name == "builtin.module"


_FUZZ_CHILD = r'''
import sys, random
sys.path.insert(0, sys.argv[1])
from tile_mlir.opt.bytecode_checks import parse_bytecode
from tile_mlir.frontend.context import make_context
from tile_mlir.mlir import MLIRError
seeds = [open(p, "rb").read() for p in sys.argv[4:]]
rng = random.Random(int(sys.argv[2]))
counts = {"ok": 0, "error": 0}
for i in range(int(sys.argv[3])):
    d = bytearray(rng.choice(seeds))
    for _ in range(rng.randint(1, 4)):
        k = rng.random()
        at = rng.randrange(len(d))
        if k < 0.4:
            d[at] = rng.randrange(256)
        elif k < 0.6:
            d[at:at] = bytes([0xFF, 0xC3, 0x5C])[: rng.randint(1, 3)]
        elif k < 0.8:
            del d[at:at + rng.randint(1, 8)]
        else:
            d = d[:max(5, at)]
    try:
        parse_bytecode(bytes(d), "m.mlirbc", make_context())
        counts["ok"] += 1
    except MLIRError:
        counts["error"] += 1
print(counts)
'''


@pytest.mark.tiered
def test_bytecode_fuzz_never_kills_the_process(tmp_path):
    """120 mutants (byte flips, non-UTF-8 insertions, deletions, truncation; the fast tier's first 15)
    of the bytecode of real tile programs, parsed in one child: each parses or raises MLIRError;
    nothing aborts."""
    seeds = []
    for name in ("demo.mlir", "fill_tmem.mlir"):
        with open(os.path.join(ROOT, "examples", name)) as f:
            p = tmp_path / (name + "bc")
            p.write_bytes(bytecode(f.read()))
            seeds.append(str(p))
    r = subprocess.run([sys.executable, "-c", _FUZZ_CHILD, os.path.join(ROOT, "python"), "22",
                        str(tiers.examples(120)), *seeds],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "'ok'" in r.stdout and "Traceback" not in r.stderr
