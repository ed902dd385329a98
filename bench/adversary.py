#!/usr/bin/env python3
"""Adversarial harness: seeded mutation fuzzing of tile-opt --tile-to-ptx and of tile-sim on PTX.

    bench/adversary.py --ir-cases N --bc-cases B --ptx-cases M --surf-cases K --seed S [--timeout T] [--jobs J]
                       [--log PATH]
    bench/adversary.py --tool-cases T --ir-cases 0 --ptx-cases 0 --seed S
    bench/adversary.py --replay [ir:|bc:|ptx:|surf:|tool:]SEED:INDEX [--save DIR]

IR campaign: the seeds are every .mlir under examples/ and test/, split at tile-opt's
--split-input-file marker. A case takes one seed, applies one to three mutators (bytes, tokens, lines,
nesting, non-UTF-8, long lines, `expected-*` noise, splices from a second seed; IR_MUTATORS) and runs
`tile-opt FILE --tile-to-ptx` (chip=sm_90a when the seed's file targets Hopper; the `expected-*` noise
adds --split-input-file --verify-diagnostics; a quarter of the cases add --allow-unregistered-dialect, so
that ops outside the known dialects reach the passes) in a subprocess. PTX that tile-opt accepts goes
through ptxas for the `.target` it names.

Bytecode campaign (--bc-cases): the seeds are the MLIR bytecode of the IR seeds of examples/ and
test/Target/PTX/ (written once per process); a case applies BC_MUTATORS (bytes, truncation, huge
varints, non-UTF-8 bytes in strings, small counts) and runs tile-opt on the .mlirbc as the IR campaign
does. IR mutators include escaped non-UTF-8 bytes in string literals and block sizes below what a
scope needs.

PTX campaign: the seeds are the PTX our pipeline emits for the kernels of examples/ and
test/Target/PTX/ (compiled once per process) and every .ptx under test/ and bench/gpu, with the
launch shape of its artifact manifest where one sits next to it. A case mutates the PTX (register
counts, directive values, operands, labels, braces, predicates, opcode modifiers, bytes, lines, splices;
PTX_MUTATORS) and runs it on tile-sim's entry point, run_ptx, in a subprocess of this script
(--sim-child) with a step budget; BAD_ARG_FRACTION of them misuse one run_ptx argument (BAD_ARGS).

Surface campaign (--surf-cases, bench/adversary_surfaces.py): generated tile.subview windows run on
tile-sim against numpy, edited artifact manifests loaded and run, and hostile compile-cache entries and
directories under jit(); a kernel accepted but faulting or giving wrong bytes is `wrong-result`.

Tool campaign (--tool-cases, bench/adversary_tools.py): the surfaces added since round three (issue
36): the layout viewer, tile-opt reproducers and --mlir-print-ir-tree-dir, artifact files and long
kernel names, tile-sim's pool, the GEMM examples' options; each case checked for its result.

Each outcome gets one class (CLASSES): diagnostic (non-zero exit with an `error:` message and no
Python traceback), accepted (exit 0; for IR, ptxas assembles the PTX or there is no PTX), bad-ptx
(tile-opt's PTX that ptxas rejects), internal-error (a message containing "internal error"), traceback,
signal (killed by a signal), hang (past --timeout), no-diagnostic (non-zero exit without a message).
A case is a hang once it has run --timeout seconds of CPU, or BLOCKED_FACTOR times that in wall time
(a child blocked without using the CPU): on a loaded machine a case gets less CPU per second, and
its wall time alone would call a slow case a hang.
Children run under a 3 GiB address-space limit, so a runaway allocation fails instead of exhausting
the machine. A sim child's imports (tile-sim; torch and MMA-Sim when the PTX has an MMA) are start-up,
bounded by STARTUP_TIMEOUT: --timeout starts once the child reports ready, so it measures the case. Cases are independent and seeded by (campaign, seed, index): the log lists every case
outside diagnostic/accepted as `campaign:seed:index` with its mutators, class and first error line,
and --replay reruns one, prints its full output and, with --save, keeps the mutant and its command.
Exits 1 when any case falls in FAILURE_CLASSES.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import dataclasses
import functools
import glob
import json
import os
import random
import re
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import adversary_surfaces as surfaces  # noqa: E402
import adversary_tools as tools  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
TILE_OPT = os.path.join(ROOT, "tools", "tile-opt")
CLASSES = ("diagnostic", "accepted", "bad-ptx", "internal-error", "traceback", "signal", "hang",
           "no-diagnostic", "wrong-result")
FAILURE_CLASSES = frozenset(CLASSES) - {"diagnostic", "accepted"}
CAMPAIGNS = ("ir", "bc", "ptx", "surf", "tool")
#: the campaigns whose cases are JSON specs run by a child of this script (their modules)
SPEC_CAMPAIGNS = {"surf": surfaces, "tool": tools}
MEMORY_LIMIT = 3 << 30  # bytes of address space per child process
SIM_MAX_STEPS = 100_000  # warp-instructions; the largest seed (fill_tmem) takes 2,331
UNREGISTERED_FRACTION = 0.25  # of IR cases run with --allow-unregistered-dialect
BAD_ARG_FRACTION = 0.15  # of PTX cases whose run_ptx call gets one misused argument (BAD_ARGS)
SIM_BUFFER_BYTES = 1 << 20  # every buffer parameter: more than any seed's (fill_tmem's 256 KiB)
#: seconds a sim child may take to import tile-sim (and, for a PTX with an MMA, torch and MMA-Sim,
#: ~5 s on busy cores) before it reports ready; --timeout bounds only the case after that
STARTUP_TIMEOUT = 120.0
READY_FD = "ADVERSARY_READY_FD"  # env: the pipe a sim child writes one byte to once imported
BLOCKED_FACTOR = 4  # a case's wall-time limit, in units of --timeout (its CPU-time limit)
MMA_OPCODES = (b"tcgen05.mma", b"wgmma.mma_async")  # PTX whose run imports MMA-Sim

# ----------------------------------------------------------------------------- corpus


@dataclasses.dataclass(frozen=True)
class IRSeed:
    name: str  # path[#chunk]
    text: bytes
    chip: str | None  # option of --tile-to-ptx, None for the default target


@dataclasses.dataclass(frozen=True)
class PTXSeed:
    name: str
    ptx: bytes
    kernel: str
    params: tuple  # ("buffer", nbytes) | ("scalar", value), in .param order
    grid: tuple
    block: tuple
    cluster: tuple
    dynamic_smem: int = 0


@functools.lru_cache(maxsize=None)
def ir_corpus(root: str = ROOT) -> tuple[IRSeed, ...]:
    from tile_mlir.frontend.context import split_input

    seeds = []
    for path in _sources(root, "examples/*.mlir", "test/**/*.mlir"):
        text = open(path, encoding="utf-8").read()
        chip = _chip(text)
        rel = os.path.relpath(path, root)
        chunks = split_input(text)
        for i, (_, chunk) in enumerate(chunks):
            seeds.append(IRSeed(rel if len(chunks) == 1 else f"{rel}#{i}", chunk.encode(), chip))
    return tuple(seeds)


@functools.lru_cache(maxsize=None)
def bc_corpus(root: str = ROOT) -> tuple[IRSeed, ...]:
    """The bytecode campaign's seeds: MLIR bytecode of the IR seeds of examples/ and test/Target/PTX/
    that parse (written by the bindings, in this process)."""
    import io

    from tile_mlir.frontend.context import make_context, parse_source
    from tile_mlir.mlir import MLIRError

    seeds = []
    for seed in ir_corpus(root):
        if not seed.name.startswith(("examples/", "test/Target/PTX/")):
            continue
        try:
            op = parse_source(seed.text.decode(), seed.name, make_context())
        except MLIRError:
            continue
        buf = io.BytesIO()
        op.write_bytecode(buf)
        seeds.append(IRSeed(seed.name + ".mlirbc", buf.getvalue(), seed.chip))
    return tuple(seeds)


@functools.lru_cache(maxsize=None)
def ptx_corpus(root: str = ROOT) -> tuple[PTXSeed, ...]:
    seeds, seen = [], set()

    def add(seed):
        if seed.ptx not in seen:
            seen.add(seed.ptx)
            seeds.append(seed)

    for seed in _compiled_seeds(root):
        add(seed)
    for path in _sources(root, "test/**/*.ptx", "bench/gpu/**/*.ptx"):
        add(_file_seed(path, root))
    return tuple(seeds)


def _sources(root, *patterns):
    """Files matching the glob patterns under root, sorted, without lit's Output/ scratch."""
    found = {p for pat in patterns for p in glob.glob(os.path.join(root, pat), recursive=True)}
    return sorted(p for p in found if "Output" not in os.path.relpath(p, root).split(os.sep))


def _compiled_seeds(root):
    import tile_mlir
    from tile_mlir.diagnostics import TileError

    for path in _sources(root, "examples/*.mlir", "test/Target/PTX/*.mlir"):
        text = open(path, encoding="utf-8").read()
        for kernel in re.findall(r'sym_name = "(\w+)"', text):
            try:
                art = tile_mlir.compile(text, _chip(text) or "sm_100a", kernel=kernel, emit=("ptx",))
            except TileError:  # a kernel the pipeline rejects gives no PTX seed
                continue
            params = tuple(("buffer", SIM_BUFFER_BYTES) if p.kind == "buffer" else ("scalar", 16)
                           for p in art.params)
            yield PTXSeed(f"{os.path.relpath(path, root)}:{kernel}", art.ptx.encode(), kernel, params,
                          _grid(art.grid, art.cluster), art.block, art.cluster, art.dynamic_smem)


def _chip(text):
    """The target a test file's RUN lines name, when it is not the default (sm_100a)."""
    return "sm_90a" if any("RUN:" in l and "sm_90a" in l for l in text.splitlines()) else None


def _file_seed(path, root):
    """A .ptx file's seed: its manifest's parameters and launch shape (scalars from its inputs)
    when <stem>.json exists, else buffers for all parameters and one CTA of 128 threads."""
    import numpy as np

    ptx = open(path, "rb").read()
    kernel = re.search(rb"\.entry\s+(\w+)", ptx).group(1).decode()
    stem = path[: -len(".ptx")]
    if not os.path.exists(stem + ".json"):
        n = len(re.findall(rb"\.param\s", ptx))
        return PTXSeed(os.path.relpath(path, root), ptx, kernel, (("buffer", SIM_BUFFER_BYTES),) * n,
                       (1, 1, 1), (128, 1, 1), (1, 1, 1))
    man = json.load(open(stem + ".json"))
    first = (man.get("launches") or [man])[0]  # (a sequence of launches, launch_seq.py: its first)
    kernel = first.get("kernel", kernel)
    inputs = np.load(stem + ".inputs.npz") if os.path.exists(stem + ".inputs.npz") else {}
    params = tuple(("buffer", SIM_BUFFER_BYTES) if p["kind"] == "buffer" else
                   ("scalar", int(inputs[p["name"]]) if p["name"] in inputs else 16)
                   for p in first["params"])
    return PTXSeed(os.path.relpath(path, root), ptx, kernel, params,
                   _grid(first["grid"], first["cluster"]), tuple(first["block"]), tuple(first["cluster"]),
                   first["dynamic_smem"])


def _grid(grid, cluster):
    """The manifest's grid, widened to a whole number of clusters (a launch needs one)."""
    return tuple(max(g, c) // c * c for g, c in zip(grid, cluster))

# ----------------------------------------------------------------------------- mutators
# A mutator takes (rng, data, donor) -> data, all bytes; donor is a second seed of the campaign.

NUMBER = re.compile(rb"\d+")
IDENT = re.compile(rb"[%@^#!$]?[A-Za-z_][\w.$]*")
STRING = re.compile(rb'"(?:[^"\\\n]|\\.)*"')
ELEM_TYPE = re.compile(rb"\b(?:[su]?i\d+|f\d+\w*|bf16|tf32|index)\b")
DIALECT = re.compile(rb"\b(tile|gpu|scf|arith|func|nvvm|llvm|builtin)\.(\w+)")
INTERESTING = (b"0", b"-1", b"1", b"3", b"127", b"255", b"256", b"65536", b"2147483647",
               b"2147483648", b"-2147483649", b"4294967295", b"4294967296", b"9223372036854775807",
               b"9223372036854775808", b"18446744073709551616", b"1" + b"0" * 40, b"9" * 400,
               b"0x7fffffff", b"1e309", b"-0", b"007")
ELEM_TYPES = (b"i1", b"i4", b"i6", b"i7", b"i8", b"i16", b"i32", b"i64", b"i128", b"i0", b"i16777215",
              b"f16", b"bf16", b"f32", b"f64", b"f8E4M3FN", b"f8E5M2", b"f6E2M3FN", b"f6E3M2FN",
              b"f4E2M1FN", b"index", b"tf32", b"complex<f32>", b"vector<4xi8>", b"none")
NON_UTF8 = (b"\xff", b"\xfe\xff", b"\xc3\x28", b"\xa0\xa1", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
            b"\xe2\x82", b"\xc0\xaf", b"\x00")
PUNCT = b'{}()[]<>",:;%@^#!=x.- \n\t\\'
NESTING = ((b"(", b")"), (b"[", b"]"), (b"{", b"}"), (b"<", b">"), (b"{a = ", b"}"),
           (b"array<i32: ", b">"), (b'"scf.if"(%c) ({\n', b'\n}) : (i1) -> ()'))
EXPECTED_NOISE = (b"// expected-error {{", b"// expected-error {{}}", b"// expected-error@+1 {{op}}",
                  b"// expected-error@-100000 {{x}}", b"// expected-error@+99999999999999999999 {{x}}",
                  b"// expected-note@below {{x}}", b"// expected-warning {{" + b"{" * 50 + b"}}",
                  b"// expected-error-re {{[[}}", b"// expected-error {{\xc3\xa9}}", b"// -----",
                  b"// expected-error@+1 2 {{x}}", b"// expected-remark@above {{x}}",
                  b"// expected-error@unknown {{x}}")


def _spans(data, pattern):
    return [m.span() for m in pattern.finditer(data)]


def _splice(data, span, new):
    return data[: span[0]] + new + data[span[1]:]


def _lines(data):
    return data.split(b"\n")


def byte_flip(rng, data, donor):
    b = bytearray(data or b"\0")
    for _ in range(rng.randint(1, 4)):
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    return bytes(b)


def byte_insert(rng, data, donor):
    new = bytes(rng.choice(PUNCT) if rng.random() < 0.8 else rng.randrange(256)
                for _ in range(rng.randint(1, 8)))
    at = rng.randint(0, len(data))
    return data[:at] + new + data[at:]


def byte_delete(rng, data, donor):
    at = rng.randint(0, len(data))
    return data[:at] + data[at + rng.randint(1, 16):]


def _token(pattern, pick_new):
    """A mutator replacing one or a few matches of pattern by pick_new(rng, match, data)."""
    def mutate(rng, data, donor):
        spans = _spans(data, pattern)
        if not spans:
            return byte_flip(rng, data, donor)
        for span in sorted(rng.sample(spans, min(len(spans), rng.randint(1, 3))), reverse=True):
            data = _splice(data, span, pick_new(rng, data[span[0]:span[1]], data + b"\n" + donor))
        return data
    return mutate


def _new_number(rng, old, pool):
    if rng.random() < 0.25:
        v = int(old)
        return str(rng.choice((v + 1, v - 1, 2 * v, v // 2, -v, v << 32))).encode()
    return rng.choice(INTERESTING)


def _new_ident(rng, old, pool):
    same = [m.group() for m in IDENT.finditer(pool) if m.group()[:1] == old[:1]]
    return rng.choice(same) if same else old + old


def _new_string(rng, old, pool):
    inner = old[1:-1]
    return rng.choice((b'""', old[:-1], b'"' + inner * rng.choice((2, 1000)) + b'"',
                       b'"' + inner + b'\\"', b'"\\' + inner + b'"', b'"' + inner[::-1] + b'"',
                       rng.choice(STRING.findall(pool) or [old])))


def _typo(rng, word):
    i = rng.randrange(len(word))
    return rng.choice((word[:i] + word[i + 1:], word[:i] + word[i:i + 1] * 2 + word[i + 1:],
                       word[:i] + word[i + 1:i + 2] + word[i:i + 1] + word[i + 2:],
                       word.upper(), word + b"_"))


def _new_dialect(rng, old, pool):
    dialect, op = old.split(b".", 1)
    return _typo(rng, dialect) + b"." + op if rng.random() < 0.5 else dialect + b"." + _typo(rng, op)


numbers = _token(NUMBER, _new_number)
identifiers = _token(IDENT, _new_ident)
strings = _token(STRING, _new_string)
dialect_typo = _token(DIALECT, _new_dialect)
elem_types = _token(ELEM_TYPE, lambda rng, old, pool: rng.choice(ELEM_TYPES))


def line_drop(rng, data, donor):
    lines = _lines(data)
    for _ in range(rng.randint(1, 3)):
        if len(lines) > 1:
            del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def line_dup(rng, data, donor):
    lines = _lines(data)
    i = rng.randrange(len(lines))
    lines[i:i + 1] = [lines[i]] * rng.choice((2, 3, 100))
    return b"\n".join(lines)


def line_swap(rng, data, donor):
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def splice(rng, data, donor):
    lines, other = _lines(data), _lines(donor)
    i = rng.randrange(len(other))
    piece = other[i:i + rng.randint(1, 8)]
    at = rng.randint(0, len(lines))
    lines[at:at + (rng.randint(1, 4) if rng.random() < 0.5 else 0)] = piece
    return b"\n".join(lines)


def nesting(rng, data, donor):
    depth = rng.choice((16, 256, 4096, 65536))
    if rng.random() < 0.3:
        return b"module {\n" * depth + data + b"\n}" * depth
    opener, closer = rng.choice(NESTING)
    at = rng.randint(0, len(data))
    return data[:at] + opener * depth + closer * depth + data[at:]


def non_utf8(rng, data, donor):
    spans = _spans(data, STRING) + _spans(data, re.compile(rb"//[^\n]*"))
    at = rng.randint(*rng.choice(spans)) if spans and rng.random() < 0.5 else rng.randint(0, len(data))
    return data[:at] + rng.choice(NON_UTF8) + data[at:]


def long_line(rng, data, donor):
    n = rng.choice((1000, 100_000, 1_000_000))
    new = rng.choice((b"%" + b"a" * n, b"// " + b"x" * n, b"9" * n, b'"' + b"S" * n + b'"',
                      b"!tile.buffer<shared, " + b"2x" * n + b"i8>", b"{" + b"a = 1, " * (n // 7) + b"}"))
    lines = _lines(data)
    at = rng.randrange(len(lines))
    if rng.random() < 0.5:
        lines.insert(at, new)
    else:
        col = rng.randint(0, len(lines[at]))
        lines[at] = lines[at][:col] + new + lines[at][col:]
    return b"\n".join(lines)


def expected_noise(rng, data, donor):
    lines = _lines(data)
    for _ in range(rng.randint(1, 3)):
        lines.insert(rng.randint(0, len(lines)), rng.choice(EXPECTED_NOISE))
    return b"\n".join(lines)


def escaped_bytes(rng, data, donor):
    """A string literal gets MLIR's escape of a byte that is not UTF-8 on its own (op names, attribute
    names, location file names: the bindings aborted converting such a name to str)."""
    spans = _spans(data, STRING)
    if not spans:
        return data
    a, b = rng.choice(spans)
    at = rng.randint(a + 1, b - 1)
    return data[:at] + rng.choice((b"\\FF", b"\\80", b"\\C3\\28", b"\\ED\\A0\\80", b"\\F4\\90")) + data[at:]


BLOCK = re.compile(rb"block = array<i32: (\d+)")


def block_size(rng, data, donor):
    """The kernel's block shrinks or grows past what its scoped ops need (warp: 32, warpgroup: 128)."""
    spans = [m.span(1) for m in BLOCK.finditer(data)]
    if not spans:
        return data
    return _splice(data, rng.choice(spans), rng.choice((b"1", b"16", b"31", b"32", b"64", b"96", b"127", b"256")))


def bc_truncate(rng, data, donor):
    return data[:rng.randrange(4, max(5, len(data)))]


def bc_varint(rng, data, donor):
    """A byte becomes the start of a 9-byte varint of a huge value (counts, sizes, offsets)."""
    at = rng.randrange(4, len(data))
    return data[:at] + b"\0" + bytes(rng.choice((0xFF, 0x7F, 0x80)) for _ in range(8)) + data[at + 1:]


def bc_string(rng, data, donor):
    """A byte that is not UTF-8 inside a run of printable bytes (a string of the string section)."""
    runs = [m.span() for m in re.finditer(rb"[\x20-\x7e]{3,}", data)]
    if not runs:
        return data
    a, b = rng.choice(runs)
    at = rng.randint(a, b)
    return data[:at] + rng.choice((b"\xff", b"\x80", b"\xc3", b"\xed\xa0\x80")) + data[at:]


def bc_small(rng, data, donor):
    """A byte gets a small value (0-8: counts, indices, section ids)."""
    at = rng.randrange(4, len(data))
    return data[:at] + bytes([rng.randrange(0, 9) * 2 + rng.randrange(2)]) + data[at + 1:]


BYTES = {"byte_flip": byte_flip, "byte_insert": byte_insert, "byte_delete": byte_delete}
LINES = {"line_drop": line_drop, "line_dup": line_dup, "line_swap": line_swap, "splice": splice}
BC_MUTATORS = {**BYTES, "bc_truncate": bc_truncate, "bc_varint": bc_varint, "bc_string": bc_string,
               "bc_small": bc_small}
IR_MUTATORS = {**BYTES, **LINES, "escaped_bytes": escaped_bytes, "block_size": block_size, "numbers": numbers, "identifiers": identifiers, "strings": strings,
               "dialect_typo": dialect_typo, "elem_types": elem_types, "nesting": nesting,
               "non_utf8": non_utf8, "long_line": long_line, "expected_noise": expected_noise}

# PTX: the forms our pipeline and the hand-written selftests emit.
REG_DECL = re.compile(rb"(?<=%)(\w+)<(\d+)>")
DIRECTIVES = (
    (re.compile(rb"\.address_size\s+(\d+)"), (b"32", b"0", b"16", b"128", b"64000")),
    (re.compile(rb"\.align\s+(\d+)"), (b"0", b"3", b"1", b"2147483648", b"1099511627776", b"-16")),
    (re.compile(rb"\.version\s+(\S+)"), (b"1.0", b"99.9", b"8", b"0.0", b"8.88888888888")),
    (re.compile(rb"\.target\s+(\S+)"), (b"sm_90a", b"sm_100", b"sm_0", b"sm_100a, debug", b"tile")),
    (re.compile(rb"\.(?:reqntid|maxntid|reqnctapercluster)\s+([\d, ]+)"),
     (b"0", b"1", b"1025, 1, 1", b"2147483648, 1, 1", b"128, 0, 1", b"32, 32, 32")),
    (re.compile(rb"\.b8\s+\w+\[(\d+)\]"), (b"0", b"1", b"1099511627776", b"232449", b"-1")),
)
INSTRUCTION = re.compile(rb"^[ \t]+(@!?%\w+[ \t]+)?([a-z][\w.:]*)([^\n;]*);", re.M)
REGISTER = re.compile(rb"%[a-z]+\d+|%\w+\.[xyz]")
ADDRESS = re.compile(rb"\[[^\]\n]*\]")
IMMEDIATE = re.compile(rb"(?<![\w%$])-?\d+")
LABEL_DEF = re.compile(rb"^(\$?\w+):", re.M)
BRANCH = re.compile(rb"\bbra(?:\.uni)?\s+(\$?\w+)")
MODIFIERS = (b"b8", b"b16", b"b32", b"b64", b"b128", b"u8", b"s32", b"f32", b"f16", b"pred",
             b"cta_group::2", b"cta_group::3", b"128x256b", b"4x256b", b"128x128b", b"x128", b"x4",
             b"32x32b", b"16x64b", b"shared::cluster", b"shared::cta", b"global", b"sync", b"aligned",
             b"relaxed", b"acquire", b"cluster", b"warpx4", b"warpx2::02_13", b"b6x16_p32")


def reg_count(rng, data, donor):
    spans = [m.span(2) for m in REG_DECL.finditer(data)]
    if not spans:
        return numbers(rng, data, donor)
    return _splice(data, rng.choice(spans), rng.choice((b"0", b"1", b"2147483648", b"4294967296",
                                                        b"1000000000", b"-1", b"9" * 20)))


def directive(rng, data, donor):
    found = [(m.span(1), values) for pattern, values in DIRECTIVES for m in pattern.finditer(data)]
    if not found:
        return numbers(rng, data, donor)
    span, values = rng.choice(found)
    return _splice(data, span, rng.choice(values))


def operand(rng, data, donor):
    instrs = [m for m in INSTRUCTION.finditer(data) if m.group(3).strip()]
    if not instrs:
        return byte_flip(rng, data, donor)
    m = rng.choice(instrs)
    start = m.start(3)
    kinds = [(REGISTER, lambda: rng.choice(REGISTER.findall(data) + [b"%r9999999", b"%zz", b"%tid.w",
                                                                     b"%laneid", b"%clock64", b"%p1"])),
             (ADDRESS, lambda: rng.choice((b"[%rd1+2147483647]", b"[0]", b"[-8]", b"[%r1]", b"[]",
                                           b"[%rd1+-1]", b"[undefined_symbol]", b"[%rd1+%rd1]"))),
             (IMMEDIATE, lambda: rng.choice(INTERESTING))]
    pattern, new = rng.choice(kinds)
    spans = [(a + start, b + start) for a, b in _spans(m.group(3), pattern)]
    if not spans:
        return numbers(rng, data, donor)
    return _splice(data, rng.choice(spans), new())


def label(rng, data, donor):
    targets = [m.span(1) for m in BRANCH.finditer(data)]
    defs = [m for m in LABEL_DEF.finditer(data)]
    if not targets and not defs:
        return line_dup(rng, data, donor)
    choice = rng.randrange(3) if defs else 0
    if choice == 0 and targets:  # branch to an undefined label
        return _splice(data, rng.choice(targets), b"$L__undefined")
    d = rng.choice(defs)
    if choice == 1:  # the label defined twice
        return data[: d.start()] + d.group() + b"\n" + data[d.start():]
    return _splice(data, d.span(), b"")  # the label gone


def brace(rng, data, donor):
    spans = [(i, i + 1) for i, c in enumerate(data) if c in b"{}()[];,"]
    if spans and rng.random() < 0.6:
        return _splice(data, rng.choice(spans), b"")
    at = rng.randint(0, len(data))
    return data[:at] + bytes([rng.choice(b"{}()[];,")]) + data[at:]


def predicate(rng, data, donor):
    instrs = list(INSTRUCTION.finditer(data))
    if not instrs:
        return byte_flip(rng, data, donor)
    m = rng.choice(instrs)
    if m.group(1) and rng.random() < 0.5:  # drop or negate the guard
        guard = m.group(1)
        new = b"" if rng.random() < 0.5 else (guard.replace(b"@!", b"@") if b"!" in guard
                                               else guard.replace(b"@", b"@!"))
        return _splice(data, m.span(1), new)
    guard = rng.choice((b"@%p1 ", b"@!%p1 ", b"@%p99999 ", b"@%r1 ", b"@%rd1 ", b"@ ", b"@!%p0 "))
    return data[: m.start(2)] + guard + data[m.start(2):]


def opcode(rng, data, donor):
    instrs = list(INSTRUCTION.finditer(data))
    if not instrs:
        return byte_flip(rng, data, donor)
    m = rng.choice(instrs)
    parts = m.group(2).split(b".")
    i = rng.randrange(len(parts))
    what = rng.randrange(3) if len(parts) > 1 else 0
    if what == 0:
        parts[i] = rng.choice(MODIFIERS) if i else _typo(rng, parts[0])
    elif what == 1:
        del parts[max(i, 1)]
    else:
        parts.insert(i + 1, parts[i])
    return _splice(data, m.span(2), b".".join(parts))


PTX_MUTATORS = {**BYTES, **LINES, "numbers": numbers, "reg_count": reg_count, "directive": directive,
                "operand": operand, "label": label, "brace": brace, "predicate": predicate,
                "opcode": opcode}

# ----------------------------------------------------------------------------- cases


@dataclasses.dataclass(frozen=True)
class Case:
    campaign: str
    seed: int
    index: int
    source: str  # the seed's name
    mutators: tuple[str, ...]
    data: bytes
    flags: tuple[str, ...] = ()  # tile-opt options besides --tile-to-ptx

    @property
    def key(self) -> str:
        return f"{self.campaign}:{self.seed}:{self.index}"

    @property
    def label(self) -> str:
        return " ".join(("+".join(self.mutators), *self.flags))


def make_case(campaign: str, seed: int, index: int, root: str = ROOT) -> Case:
    """Case `index` of a campaign: a function of (campaign, seed, index) and the corpus alone."""
    if campaign in SPEC_CAMPAIGNS:
        spec = SPEC_CAMPAIGNS[campaign].make_spec(seed, index)
        detail = {k: v for k, v in spec.items() if k != "kind"}
        return Case(campaign, seed, index, spec["kind"], (json.dumps(detail)[:160],), json.dumps(spec).encode())
    rng = random.Random(f"{campaign}:{seed}:{index}")
    corpus = _corpus(campaign, root)
    table = {"ir": IR_MUTATORS, "bc": BC_MUTATORS, "ptx": PTX_MUTATORS}[campaign]
    base = rng.choice(corpus)
    data = _text(base)
    names = tuple(rng.choice(sorted(table)) for _ in range(rng.choices((1, 2, 3), (6, 3, 1))[0]))
    for name in names:
        data = table[name](rng, data, _text(rng.choice(corpus)))
    flags = ()
    if campaign == "ir":
        if "expected_noise" in names:
            flags += ("--split-input-file", "--verify-diagnostics")
        # drawn apart from the mutations: a case's text does not depend on its flags
        if random.Random(f"{campaign}:{seed}:{index}:flags").random() < UNREGISTERED_FRACTION:
            flags += ("--allow-unregistered-dialect",)
    if campaign == "ptx":
        bad = random.Random(f"{campaign}:{seed}:{index}:args")
        if bad.random() < BAD_ARG_FRACTION:
            flags += (f"--bad-arg={bad.choice(sorted(BAD_ARGS))}",)
    return Case(campaign, seed, index, base.name, names, data, flags)


def _text(seed):
    return seed.text if isinstance(seed, IRSeed) else seed.ptx


def _corpus(campaign: str, root: str = ROOT):
    return {"ir": ir_corpus, "bc": bc_corpus, "ptx": ptx_corpus}[campaign](root)


def _seed_of(case: Case, root: str = ROOT):
    return next(s for s in _corpus(case.campaign, root) if s.name == case.source)

# ----------------------------------------------------------------------------- running


@dataclasses.dataclass(frozen=True)
class Result:
    key: str
    source: str
    mutators: str  # and flags (Case.label)
    cls: str
    first_line: str  # of the error
    signature: str  # what groups failures of one cause: exception type and innermost frame, ...
    seconds: float


def commands(case: Case, workdir: str, root: str = ROOT) -> list[str]:
    """Write the case's input files under workdir; the command that runs it."""
    if case.campaign in SPEC_CAMPAIGNS:
        path = os.path.join(workdir, f"{case.campaign}.json")
        with open(path, "wb") as f:
            f.write(case.data)
        return [sys.executable, os.path.abspath(__file__), f"--{case.campaign}-child", path]
    seed = _seed_of(case, root)
    if case.campaign in ("ir", "bc"):
        path = os.path.join(workdir, "case.mlir" if case.campaign == "ir" else "case.mlirbc")
        with open(path, "wb") as f:
            f.write(case.data)
        flag = "--tile-to-ptx" + (f"=chip={seed.chip}" if seed.chip else "")
        return [sys.executable, TILE_OPT, path, flag, *case.flags]
    path = os.path.join(workdir, "case.ptx")
    with open(path, "wb") as f:
        f.write(case.data)
    spec = {"ptx": path, "kernel": seed.kernel, "params": seed.params, "grid": seed.grid,
            "block": seed.block, "cluster": seed.cluster, "dynamic_smem": seed.dynamic_smem,
            "max_steps": SIM_MAX_STEPS, "seed": case.index,
            "bad_arg": next((f.split("=", 1)[1] for f in case.flags if f.startswith("--bad-arg=")), None)}
    with open(os.path.join(workdir, "case.json"), "w") as f:
        json.dump(spec, f)
    return [sys.executable, os.path.abspath(__file__), "--sim-child", os.path.join(workdir, "case.json")]


def run_limited(cmd: list[str], timeout: float, ready: bool = False) -> tuple[int | None, str, str]:
    """(returncode, stdout, stderr) of cmd under MEMORY_LIMIT; returncode None when it timed out.
    ``ready``: cmd is a sim child, which reports the end of its start-up on the READY_FD pipe; the
    timeout runs from then (start-up has STARTUP_TIMEOUT). The child leads its own process group,
    killed whole on a timeout."""
    wrapped = [sys.executable, os.path.abspath(__file__), "--exec-limited", "--", *cmd]
    r = w = None
    env = None
    if ready:
        r, w = os.pipe()
        env = {**os.environ, READY_FD: str(w)}
    try:
        p = subprocess.Popen(wrapped, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                             env=env, pass_fds=(w,) if ready else ())
    finally:
        if ready:
            os.close(w)
    try:
        if ready:
            with selectors.DefaultSelector() as sel:  # a byte, or EOF when the child exits first
                sel.register(r, selectors.EVENT_READ)
                if not sel.select(STARTUP_TIMEOUT):
                    raise subprocess.TimeoutExpired(cmd, STARTUP_TIMEOUT)
        out, err = _communicate(p, timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return None, out.decode(errors="replace"), err.decode(errors="replace")
    finally:
        if ready:
            os.close(r)
    return p.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def _cpu_seconds(pid: int) -> float | None:
    """The user + system CPU seconds of process pid so far (Linux /proc), None where unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _communicate(p: subprocess.Popen, timeout: float) -> tuple[bytes, bytes]:
    """p's output, raising TimeoutExpired once p has used `timeout` CPU seconds since this call, or
    spent BLOCKED_FACTOR * timeout wall seconds in it (or `timeout` where CPU time is not known)."""
    t0, cpu0 = time.monotonic(), _cpu_seconds(p.pid)
    while True:
        try:
            return p.communicate(timeout=min(1.0, timeout))
        except subprocess.TimeoutExpired:
            wall = time.monotonic() - t0
            cpu = _cpu_seconds(p.pid)
            used = wall if cpu is None or cpu0 is None else cpu - cpu0
            if wall >= timeout and (used >= timeout or wall >= BLOCKED_FACTOR * timeout):
                raise


def classify(rc: int | None, stderr: str) -> str:
    if rc is None:
        return "hang"
    if rc < 0:
        return "signal"
    if "Traceback (most recent call last)" in stderr:
        return "traceback"
    if surfaces.WRONG in stderr:
        return "wrong-result"
    if re.search(r"internal error", stderr, re.I):
        return "internal-error"
    if rc == 0:
        return "accepted"
    return "diagnostic" if re.search(r"\berror\b", stderr) else "no-diagnostic"


_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def describe(cls: str, rc: int | None, stderr: str) -> tuple[str, str]:
    """(first line of the error, signature) of an outcome."""
    lines = [l for l in stderr.splitlines() if l.strip()]
    if cls == "hang":
        return "timed out", "hang"
    if cls == "signal":
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = str(-rc)
        return (lines[-1] if lines else name), f"signal {name}"
    if cls == "traceback":
        exc = lines[-1] if lines else ""
        frames = _FRAME.findall(stderr)
        ours = [f for f in frames if "tile_mlir" in f[0] or "tile-opt" in f[0]] or frames
        where = f"{os.path.basename(ours[-1][0])}:{ours[-1][1]} {ours[-1][2]}" if ours else "?"
        return exc, f"{exc.split(':')[0]} at {where}"
    if cls == "wrong-result":
        line = next(l for l in lines if surfaces.WRONG in l)
        return line, line.split(":")[1].strip()[:60]
    if cls == "internal-error":
        line = next(l for l in lines if re.search(r"internal error", l, re.I))
        parts = (re.search(r"internal error[^:]*", line, re.I),
                 re.search(r"internal error[^:]*: (\w+):", line, re.I), re.search(r"\(at [^)]*\)", line))
        return line, " ".join(m.group(m.lastindex or 0) for m in parts if m)
    first = next((l for l in lines if re.search(r"\berror\b", l)), lines[0] if lines else f"exit {rc}")
    return first, cls


def run_case(case: Case, timeout: float, root: str = ROOT) -> Result:
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="adversary-") as d:
        rc, out, err = run_limited(commands(case, d, root), timeout, ready=case.campaign in ("ptx", "surf", "tool"))
        cls = classify(rc, err)
        if cls == "accepted" and case.campaign in ("ir", "bc") and ".version" in out:
            rc, err, cls = _assemble(out, d, timeout)
    first, sig = describe(cls, rc, err)
    return Result(case.key, case.source, case.label, cls, first[:240], sig[:240],
                  time.perf_counter() - t0)


def _assemble(ptx: str, workdir: str, timeout: float) -> tuple[int | None, str, str]:
    """ptxas on tile-opt's PTX for the .target it names: (rc, stderr, class)."""
    from tile_mlir.driver.toolchain import find_tool

    ptxas = find_tool("ptxas")
    if ptxas is None:
        raise RuntimeError("ptxas not found (pip install nvidia-cuda-nvcc, or put it on PATH)")
    path = os.path.join(workdir, "out.ptx")
    with open(path, "w") as f:
        f.write(ptx)
    target = re.search(r"^\s*\.target\s+(sm_\w+)", ptx, re.M)
    rc, _, err = run_limited([ptxas, f"-arch={target.group(1) if target else 'sm_100a'}", path, "-o",
                              os.path.join(workdir, "out.cubin")], timeout)
    if rc is None:
        return rc, "ptxas timed out", "hang"
    return rc, err if rc else "", "accepted" if rc == 0 else "bad-ptx"


def sim_child(spec_path: str) -> int:
    """The PTX campaign's child: run the spec's PTX on tile-sim. An EmulationError is a diagnostic
    (exit 1); any other exception propagates as a traceback. Start-up (the imports) ends with one
    byte on the READY_FD pipe."""
    import numpy as np

    from tile_mlir.sim import EmulationError, run_ptx

    spec = json.load(open(spec_path))
    raw = open(spec["ptx"], "rb").read()
    if any(op in raw for op in MMA_OPCODES):
        try:  # what tile-sim imports on the first MMA (sim/mma_numerics.py); absent, the run says so
            import mmasim.nv_ptx  # noqa: F401
            import torch  # noqa: F401
        except ImportError:
            pass
    if READY_FD in os.environ:
        fd = int(os.environ.pop(READY_FD))
        os.write(fd, b"1")
        os.close(fd)
    rng = np.random.default_rng(spec["seed"])
    args = [rng.integers(0, 256, v, dtype=np.uint8) if kind == "buffer" else v
            for kind, v in spec["params"]]
    ptx = raw.decode("latin-1")  # every byte reaches the parser
    kw = dict(grid=spec["grid"], block=spec["block"], cluster=spec["cluster"], dynamic_smem=spec["dynamic_smem"],
              max_steps=spec["max_steps"], strict=True)  # mutants of our kernels: every ISA rule is a fault
    if spec.get("bad_arg"):
        BAD_ARGS[spec["bad_arg"]](kw, args)
    try:
        run_ptx(ptx, spec["kernel"], args, **kw)
    except EmulationError as e:
        print(f"tile-sim: error: {e}", file=sys.stderr)
        return 1
    return 0


def _read_only_first_array(kw, args):
    for a in args:
        if hasattr(a, "flags"):
            a.flags.writeable = False
            return


def _huge_scalar(kw, args):
    for i, a in enumerate(args):
        if isinstance(a, int):
            args[i] = 2 ** 64
            return
    kw["grid"] = (3.9, 1, 1)


#: run_ptx misuses (issue #22): each must be run_ptx's own EmulationError, before the run
BAD_ARGS = {
    "grid-str": lambda kw, args: kw.update(grid="12"),
    "block-str": lambda kw, args: kw.update(block="32"),
    "grid-float": lambda kw, args: kw.update(grid=(3.9, 1, 1)),
    "max-seconds-nan": lambda kw, args: kw.update(max_seconds=float("nan")),
    "max-steps-str": lambda kw, args: kw.update(max_steps="5"),
    "dynamic-smem-negative": lambda kw, args: kw.update(dynamic_smem=-1),
    "read-only-array": _read_only_first_array,
    "scalar-2**64": _huge_scalar,
}


def exec_limited(cmd: list[str]) -> None:
    """Become cmd under MEMORY_LIMIT (the limit survives exec; no preexec_fn in a threaded parent)."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    os.execv(cmd[0], cmd)

# ----------------------------------------------------------------------------- campaigns


def run_campaigns(ir_cases: int, ptx_cases: int, *, seed: int = 0, timeout: float = 30.0, jobs: int = 1,
                  root: str = ROOT, progress=None, bc_cases: int = 0, surf_cases: int = 0,
                  tool_cases: int = 0) -> dict[str, list[Result]]:
    """Run the campaigns; results per campaign in case order. progress(done, total) if given."""
    keys = ([("ir", i) for i in range(ir_cases)] + [("bc", i) for i in range(bc_cases)]
            + [("ptx", i) for i in range(ptx_cases)] + [("surf", i) for i in range(surf_cases)]
            + [("tool", i) for i in range(tool_cases)])
    if ir_cases or bc_cases:
        ir_corpus(root)
    if bc_cases:
        bc_corpus(root)
    if ptx_cases:
        ptx_corpus(root)  # built once, before the threads share it
    results = {c: [] for c in CAMPAIGNS}

    def one(key):
        return key, run_case(make_case(key[0], seed, key[1], root), timeout, root)

    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        for done, ((campaign, i), r) in enumerate(pool.map(one, keys), 1):
            results[campaign].append(r)
            if progress:
                progress(done, len(keys))
    return results


def failures(results: dict[str, list[Result]]) -> list[Result]:
    return [r for c in CAMPAIGNS for r in results[c] if r.cls in FAILURE_CLASSES]


def table(results: dict[str, list[Result]]) -> str:
    counts = {c: collections.Counter(r.cls for r in results[c]) for c in CAMPAIGNS}
    rows = [f"{'class':<16}" + "".join(f"{c:>8}" for c in CAMPAIGNS)]
    for cls in CLASSES:
        rows.append(f"{cls:<16}" + "".join(f"{counts[c][cls]:>8}" for c in CAMPAIGNS))
    rows.append(f"{'total':<16}" + "".join(f"{len(results[c]):>8}" for c in CAMPAIGNS))
    return "\n".join(rows)


def surf_kinds(results: dict[str, list[Result]], campaign: str = "surf") -> str:
    """A spec campaign's classes per kind (surf: window, manifest, cache; tool: adversary_tools.KINDS)."""
    by = collections.defaultdict(collections.Counter)
    for r in results.get(campaign, ()):
        by[r.source][r.cls] += 1
    return "\n".join(f"  {k:<9} " + ", ".join(f"{n} {c}" for c, n in sorted(cs.items())) for k, cs in sorted(by.items()))


def signatures(results: dict[str, list[Result]]) -> str:
    """Failures grouped by signature, most frequent first, with one replayable case each."""
    groups = collections.defaultdict(list)
    for r in failures(results):
        groups[(r.key.split(":")[0], r.cls, r.signature)].append(r)
    return "\n".join(f"{len(rs):>5}  {c:<4} {cls:<15} {sig}  (e.g. {rs[0].key})"
                     for (c, cls, sig), rs in sorted(groups.items(), key=lambda kv: -len(kv[1]))) or "    none"


def write_log(path: str, argv: list[str], results, seconds: float) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write(f"# bench/adversary.py {' '.join(argv)}\n# {time.strftime('%Y-%m-%d %H:%M:%S')}, "
                f"{seconds:.0f} s, at {_revision()}; corpus: {len(ir_corpus())} IR seeds, "
                f"{len(bc_corpus()) if results.get('bc') else 0} bytecode seeds, {len(ptx_corpus())} PTX seeds\n")
        f.write("# key  class  mutators  seed  first line of the error\n")
        for r in failures(results):
            f.write(f"{r.key}  {r.cls}  {r.mutators}  {r.source}  {r.first_line}\n")
        f.write("\n" + table(results) + "\n")
        if results.get("surf"):
            f.write("\nsurface cases by kind:\n" + surf_kinds(results) + "\n")
        if results.get("tool"):
            f.write("\ntool cases by kind:\n" + surf_kinds(results, "tool") + "\n")
        f.write("\nfailure signatures:\n" + signatures(results) + "\n")


def _revision() -> str:
    """The checkout's commit, marked when the working tree differs from it."""
    def git(*args):
        return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True).stdout.strip()
    head = git("rev-parse", "--short", "HEAD") or "an unknown commit"
    return head + (" with uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else "")


def replay(key: str, timeout: float, save: str | None) -> int:
    parts = key.split(":")
    campaigns = [parts.pop(0)] if parts[0] in CAMPAIGNS else list(CAMPAIGNS)
    seed, index = int(parts[0]), int(parts[1])
    worst = 0
    for campaign in campaigns:
        case = make_case(campaign, seed, index)
        workdir = tempfile.mkdtemp(prefix="adversary-") if save is None else save
        os.makedirs(workdir, exist_ok=True)
        cmd = commands(case, workdir)
        print(f"{case.key}: seed {case.source}, mutators {case.label}\n$ {' '.join(cmd)}")
        t0 = time.perf_counter()
        rc, out, err = run_limited(cmd, timeout, ready=campaign in ("ptx", "surf", "tool"))
        cls = classify(rc, err)
        if cls == "accepted" and campaign in ("ir", "bc") and ".version" in out:
            rc, err, cls = _assemble(out, workdir, timeout)
        print(err[-6000:].rstrip())
        print(f"=> {cls} (exit {rc}, {time.perf_counter() - t0:.1f} s)")
        worst |= cls in FAILURE_CLASSES
        if save is None:
            shutil.rmtree(workdir)
    return int(worst)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--exec-limited"]:
        exec_limited(argv[2:])
    if argv[:1] == ["--sim-child"]:
        return sim_child(argv[1])
    if argv[:1] == ["--surf-child"]:
        return surfaces.child(argv[1])
    if argv[:1] == ["--tool-child"]:
        return tools.child(argv[1])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ir-cases", type=int, default=200)
    ap.add_argument("--ptx-cases", type=int, default=200)
    ap.add_argument("--bc-cases", type=int, default=0, help="bytecode mutants run by tile-opt (default 0)")
    ap.add_argument("--surf-cases", type=int, default=0,
                    help="generated window / manifest / cache cases (bench/adversary_surfaces.py; default 0)")
    ap.add_argument("--tool-cases", type=int, default=0,
                    help="generated layout / reproducer / artifact / treedir / pool / example cases "
                         "(bench/adversary_tools.py; default 0)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per subprocess (default 30)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--log", help="write the failures, the table and the signatures here")
    ap.add_argument("--replay", metavar="[ir:|ptx:]SEED:INDEX", help="rerun one case and show its output")
    ap.add_argument("--save", metavar="DIR", help="with --replay: keep the mutant and its files in DIR")
    a = ap.parse_args(argv)
    if a.replay:
        return replay(a.replay, a.timeout, a.save)

    t0 = time.perf_counter()

    def progress(done, total):
        if done % 100 == 0 or done == total:
            print(f"... {done}/{total} cases, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)

    results = run_campaigns(a.ir_cases, a.ptx_cases, seed=a.seed, timeout=a.timeout, jobs=a.jobs,
                            progress=progress, bc_cases=a.bc_cases, surf_cases=a.surf_cases,
                            tool_cases=a.tool_cases)
    seconds = time.perf_counter() - t0
    for r in failures(results):
        print(f"{r.key}  {r.cls}  {r.mutators}  {r.source}  {r.first_line}")
    print(table(results))
    if results.get("surf"):
        print("surface cases by kind:\n" + surf_kinds(results))
    if results.get("tool"):
        print("tool cases by kind:\n" + surf_kinds(results, "tool"))
    print("failure signatures:\n" + signatures(results))
    print(f"time: {seconds:.0f} s ({a.jobs} job(s), seed {a.seed})")
    if a.log:
        write_log(a.log, argv, results, seconds)
    return 1 if failures(results) else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(ROOT, "python"))
    sys.exit(main())
