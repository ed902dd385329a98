"""MLIR bytecode as tile input: what it must satisfy before and while MLIR's reader sees it.

Text gets text_checks; bytecode skips the lexer, so its strings arrive raw and its nesting unbounded:

* every string of the string section (op, dialect and attribute names, location file names, string
  attributes) must pass text_checks.check_string (UTF-8, bounded length): the bindings abort the
  process on converting a non-UTF-8 name to str;
* the reader and the verifier recurse per region level (measured: 15,000 nested modules, 300 KB of
  bytecode, overflow the 8 MiB main-thread stack), so :func:`parse_bytecode` parses on a thread whose
  stack is sized from the input's length (a level takes at least 6 bytes of bytecode and, measured,
  under 1 KiB of stack), then counts the nesting without recursion and refuses (destroying the module
  on that thread) what nests deeper than text may;
* MLIR's reader is not hardened against damaged bytecode (the fuzz found fatal errors on huge
  counts, heap corruption from the attribute offset table, endless loops): the offset table is
  checked here, and the input is parsed once in a forked child first (:func:`_probe`), so a reader
  that dies or hangs is a diagnostic;
* the parsed module is printed (generic form, with locations, as bytes: no str conversion) and the
  print must pass text_checks.check_text, which catches the strings that reach the IR through the
  attribute section's assembly-format strings.

Pure Python up to the parse; the format is docs/BytecodeFormat.md of MLIR (magic `ML\\xefR`, PrefixVarInt
integers, sections of an id byte, a length and an optional alignment padded with 0xCB).
"""
from __future__ import annotations

import os
import threading

from ..frontend.text_checks import MAX_NESTING, TextProblem, check_string, check_text
from ..mlir import MLIRError, ir
from ..frontend.context import _source_error, make_context

__all__ = ["MAGIC", "MAX_BYTECODE_SIZE", "is_bytecode", "check_bytecode", "parse_bytecode"]

MAGIC = b"ML\xefR"
# The largest bytecode accepted: the stack the parse thread reserves grows with the input (1 GiB at
# this size, reserved lazily); a tile program's bytecode is a few KiB.
MAX_BYTECODE_SIZE = 8 << 20
_STACK_BASE, _STACK_PER_BYTE = 64 << 20, 120
# CPU seconds the probe's child may take (a tile program's bytecode parses in milliseconds; 15,000
# nested modules, 300 KB, take about 10 s, measured): CPU time, so that a loaded machine does not
# turn a slow parse into a refusal; the wall-clock limit only backs it up.
PROBE_CPU_SECONDS, PROBE_CPU_SECONDS_PER_BYTE, PROBE_WALL_FACTOR = 5, 1 / 16384, 20
_STRING_SECTION, _ATTR_TYPE_SECTION, _ATTR_TYPE_OFFSET_SECTION = 0, 2, 3
# Region levels: text nests two brackets a level at least (`({` of a generic op's region), so this is
# the same bound text_checks.MAX_NESTING puts on text.
MAX_REGION_DEPTH = MAX_NESTING // 2


class _Truncated(Exception):
    pass


def is_bytecode(data) -> bool:
    return isinstance(data, (bytes, bytearray)) and bytes(data[:4]) == MAGIC


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """(value, next position) of the PrefixVarInt at `pos`."""
    if pos >= len(data):
        raise _Truncated
    first = data[pos]
    if first & 1:
        return first >> 1, pos + 1
    if first == 0:
        if pos + 9 > len(data):
            raise _Truncated
        return int.from_bytes(data[pos + 1:pos + 9], "little"), pos + 9
    n = (first & -first).bit_length()  # bytes in all: trailing zeros + 1
    if pos + n > len(data):
        raise _Truncated
    return int.from_bytes(data[pos:pos + n], "little") >> n, pos + n


def _sections(data: bytes) -> dict[int, bytes] | None:
    """Section id -> data, or None where the header or the sections cannot be followed."""
    try:
        _, pos = _varint(data, 4)  # version
        pos = data.index(b"\0", pos) + 1  # after the producer
        out = {}
        while pos < len(data):
            ident = data[pos]
            length, pos = _varint(data, pos + 1)
            if ident & 0x80:
                _, pos = _varint(data, pos)
                while pos < len(data) and data[pos] == 0xCB:
                    pos += 1
            if pos + length > len(data):
                return None
            out[ident & 0x7F], pos = data[pos:pos + length], pos + length
        return out
    except (_Truncated, ValueError):
        return None


def _strings(section: bytes) -> list[bytes] | None:
    """The strings of the string section as MLIR's reader takes them (their sizes, NUL included, are
    listed in reverse order before the data; each string ends where the next begins), or None."""
    try:
        count, at = _varint(section, 0)
        if count > len(section):
            return None
        sizes = []
        for _ in range(count):
            size, at = _varint(section, at)
            sizes.append(size)
    except _Truncated:
        return None
    end, out = len(section), []
    for size in sizes:
        if size < 1 or size > end - at or section[end - 1] != 0:
            return None
        out.append(section[end - size:end - 1])
        end -= size
    return out


def _entry_sizes(section: bytes) -> list[tuple[int, bool]] | None:
    """(size, has custom encoding) of each attribute and type entry listed by the attribute/type
    offset section, or None when its dialect groups hold more entries than it declares: the reader
    (LLVM 23) fills its entry table group by group without that check, so a larger count writes past
    the table (measured: heap corruption, then an abort)."""
    out = []
    try:
        num_attrs, at = _varint(section, 0)
        num_types, at = _varint(section, at)
        for total in (num_attrs, num_types):
            while total:
                _, at = _varint(section, at)  # dialect
                count, at = _varint(section, at)
                if count > total:
                    return None
                for _ in range(count):
                    value, at = _varint(section, at)
                    out.append((value >> 1, bool(value & 1)))
                total -= count
    except _Truncated:
        return None
    return out


def _asm_entries(section: bytes, sizes) -> list[bytes]:
    """The entries of the attribute/type section held as assembly text (no custom encoding), which
    the reader hands to MLIR's text parser."""
    out, at = [], 0
    for size, custom in sizes:
        if not custom:
            out.append(section[at:at + size].rstrip(b"\0"))
        at += size
    return out


def check_bytecode(data: bytes) -> str | None:
    """What makes bytecode unfit for the reader (size, a string check_string refuses), or None."""
    if len(data) > MAX_BYTECODE_SIZE:
        return f"bytecode of {len(data)} bytes: tile IR bytecode is at most {MAX_BYTECODE_SIZE} bytes"
    sections = _sections(data)
    strings = None if sections is None else _strings(sections.get(_STRING_SECTION, b"\1"))
    if strings is None:
        return "malformed bytecode: its sections or string table cannot be followed"
    sizes = _entry_sizes(sections.get(_ATTR_TYPE_OFFSET_SECTION, b"\1\1"))
    if sizes is None:
        return "malformed bytecode: its attribute and type offsets list more entries than it declares"
    producer = data[_varint(data, 4)[1]:].split(b"\0", 1)[0]  # (sections were followed: no _Truncated)
    why = check_string(producer)
    if why is not None:
        return f"bytecode producer: {why}"
    for i, asm in enumerate(_asm_entries(sections.get(_ATTR_TYPE_SECTION, b""), sizes)):
        why = check_string(asm)
        if why is None:
            problem = check_text(asm.decode("utf-8"))
            why = problem.message if problem else None
        if why is not None:
            return f"bytecode attribute or type #{i}: {why}"
    for i, s in enumerate(strings):
        why = check_string(s)
        if why is not None:
            return f"bytecode string #{i}: {why}"
    return None


def _depth(op) -> int:
    """The deepest region nesting under `op`, counted without recursion."""
    deepest, work = 0, [(op, 0)]
    while work:
        op, depth = work.pop()
        deepest = max(deepest, depth)
        for region in op.regions:
            for block in region.blocks:
                work.extend((o.operation, depth + 1) for o in block.operations)
    return deepest


def parse_bytecode(data: bytes, filename: str, context):
    """The module (an Operation) in `data`, parsed on a thread with a stack fit for it.

    Raises MLIRError as the reader does; bytecode refused here raises context.SourceError (an
    MLIRError) with one error at `filename`:1:1."""

    why = check_bytecode(data) or _probe(data)
    if why is not None:
        raise _source_error(TextProblem(1, 1, why), filename, context)
    return _parse_on_big_stack(data, filename, context)


def _probe(data: bytes) -> str | None:
    """Parse `data` once in a forked child first: MLIR's reader (LLVM 23) is not hardened against
    damaged bytecode (measured by the bytecode fuzz: fatal errors on huge counts, endless loops), so
    a child that dies or runs past its CPU budget makes a diagnostic, not a dead or hung caller.
    None where the child parsed it (or fork is unavailable)."""
    if not hasattr(os, "fork"):
        return None
    import resource
    import signal
    import time

    cpu = int(PROBE_CPU_SECONDS + len(data) * PROBE_CPU_SECONDS_PER_BYTE)
    pid = os.fork()
    if pid == 0:  # the child: quiet, and gone without running the parent's exit handlers
        code = 0
        try:
            used = int(sum(os.times()[:2])) + 1
            resource.setrlimit(resource.RLIMIT_CPU, (used + cpu, used + cpu + 1))
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 2)
            os.dup2(null, 1)
            _parse_on_big_stack(data, "probe", make_context())
        except MLIRError:
            code = 0  # the reader's own diagnostic: the parent reports it
        except BaseException:  # noqa: BLE001
            code = 1
        os._exit(code)
    deadline = time.monotonic() + cpu * PROBE_WALL_FACTOR
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return f"MLIR's bytecode reader did not finish this input in {cpu * PROBE_WALL_FACTOR} s (damaged bytecode)"
        time.sleep(0.005)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL):
        return f"MLIR's bytecode reader did not finish this input in {cpu} s of CPU time (damaged bytecode)"
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        return f"MLIR's bytecode reader crashes on this input ({name}): damaged bytecode"
    return None


def _parse_on_big_stack(data: bytes, filename: str, context):

    result: dict = {}

    def work():
        try:
            with context:
                module = ir.Module.parse(data)
            depth = _depth(module.operation)
            if depth > MAX_REGION_DEPTH:
                result["refused"] = (f"regions nested {depth} deep: tile IR nests regions at most "
                                     f"{MAX_REGION_DEPTH} deep (deeper input would overflow the stack)")
                del module  # destroyed here, on the thread with the large stack
                return
            printed = module.operation.get_asm(binary=True, print_generic_op_form=True, enable_debug_info=True,
                                               assume_verified=True)
            problem = check_text(printed.decode("utf-8", "surrogateescape"))
            if isinstance(problem, TextProblem):
                result["refused"] = f"{problem.message} (line {problem.line} of the module as text)"
                del module
                return
            result["module"] = module
        except MLIRError as e:
            result["error"] = e
        except Exception as e:  # noqa: BLE001 - re-raised on the caller's thread
            result["error"] = e

    old = threading.stack_size()
    threading.stack_size(_STACK_BASE + _STACK_PER_BYTE * len(data))
    try:
        thread = threading.Thread(target=work, name="tile-bytecode-parse")
        thread.start()
    finally:
        threading.stack_size(old)
    thread.join()
    if "error" in result:
        raise result["error"]
    if "refused" in result:
        raise _source_error(TextProblem(1, 1, result["refused"]), filename, context)
    return result["module"].operation  # (the Operation keeps its Module alive)
