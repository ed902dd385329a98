"""Pre-decoding helpers: each instruction becomes one compiled Python closure.

Operand accessors are emitted as Python source (``r[5]``, ``0x10``), so that the per-thread
closure of ``add.s32 %r3, %r1, 7`` is literally ``r[3] = (r[1] + 7) & 0xffffffff``.  Registers are
Python ints holding the unsigned bit pattern of the register's declared width; predicates are 0/1.
"""

from __future__ import annotations

import struct

import numpy as np

from .errors import EmulationError
from .names import Label
from .locations import after_source, source
from .ptx_parser import show_operand

#: special registers evaluated at read time (deterministic: derived from the step counter); the
#: others are stored in the register file at thread creation (machine.py)
DYNAMIC_SPECIAL = {"%clock": "(M.steps & 0xffffffff)", "%clock64": "M.steps",
                   "%globaltimer": "(M.steps * 1000)",
                   "%globaltimer_lo": "((M.steps * 1000) & 0xffffffff)",
                   "%globaltimer_hi": "((M.steps * 1000) >> 32)"}


def mask(bits: int) -> int:
    return (1 << bits) - 1


#: the doubles from this magnitude on round to infinity in f32 (FLT_MAX + half an ulp, a tie that
#: goes to the even neighbour, infinity)
F32_OVERFLOW = 2.0 ** 128 - 2.0 ** 103


def f32_to_bits(x: float) -> int:
    if abs(x) >= F32_OVERFLOW:  # infinity, which numpy also gives, with an overflow warning
        return 0xFF800000 if x < 0 else 0x7F800000
    return int(np.array(x, dtype=np.float32).view(np.uint32))


def bits_to_f32(b: int) -> float:
    return float(np.array(b & 0xFFFFFFFF, dtype=np.uint32).view(np.float32))


def f64_to_bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def bits_to_f64(b: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", b & 0xFFFFFFFFFFFFFFFF))[0]


#: a shared variable's address in the issuing CTA: its .shared::cta window starts at its cluster
#: rank's .shared::cluster window (sim/memory.py)
SHARED_SYM = "(t.cta.rank << 24)"


class Decoder:
    """Per-kernel decoding context: register slots, symbols and closure compilation.

    A register gets its slot in the threads' register files when an instruction first names it,
    so the files hold the registers the kernel uses, not every one it declares."""

    def __init__(self, machine, fn, symbols: dict):
        self.M = machine
        self.fn = fn
        self.symbols = symbols  # VarDecl | Param -> (space, value)
        self.slots: dict = {}  # Register.key -> slot
        self.inst = None  # instruction being decoded
        self.pc_base = 0  # where the function being decoded starts in the code (device functions)
        self.fused: dict = {}  # id(add / sub) -> (mul, operand): the pairs ptxas fuses (contract.py)
        self.dead_muls: set = set()  # id(mul) of the products only fused sums read: run as nothing

    @property
    def nslots(self):
        return len(self.slots)

    def special_slots(self) -> dict[str, int]:
        """name -> slot of each special register the kernel reads."""
        return {decl.name: s for (decl, _), s in self.slots.items() if decl.special}

    # -- errors -----------------------------------------------------------------------------
    def error(self, msg: str) -> EmulationError:
        i = self.inst
        loc = source(self.M.module.files, i.loc)
        msg = f"line {i.line}: `{i.text}`: {msg}"
        return EmulationError(f"{loc}: error: {after_source(msg)}" if loc else msg, line=i.line, located=True,
                              source=loc)

    # -- operand access -----------------------------------------------------------------------
    def operands(self, lo: int, hi: int | None = None) -> list:
        """The operands of the instruction being decoded, refused unless there are ``lo`` (to
        ``hi``) of them."""
        ops = self.inst.operands
        hi = lo if hi is None else hi
        if not lo <= len(ops) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            raise self.error(f"expected {want} operands, got {len(ops)}")
        return ops

    def slot(self, op) -> int:
        if op[0] != "reg":
            raise self.error(f"expected a register operand, got `{show_operand(op)}`")
        key = op[1].key
        s = self.slots.get(key)
        if s is None:
            s = self.slots[key] = len(self.slots)
        return s

    def sym(self, decl):
        """(space, value) of a symbol: ("label", instruction index) or a variable's address."""
        if isinstance(decl, Label):
            return "label", decl.index + self.pc_base
        v = self.symbols.get(decl)
        if v is None:
            raise self.error(f"`{decl.name}` is not a variable or parameter of this kernel")
        return v

    def src(self, op, bits: int, signed: bool = False, ftype: bool = False) -> str:
        """Python expression reading ``op`` as a ``bits``-wide value (signed: as a Python int)."""
        k = op[0]
        m = mask(bits)
        if k == "reg":
            reg = op[1]
            if reg.decl.special and reg.decl.name in DYNAMIC_SPECIAL:
                e = DYNAMIC_SPECIAL[reg.decl.name]
            else:
                s = self.slot(op)
                e = f"r[{s}]" if reg.bits <= bits else f"(r[{s}] & {m:#x})"
        elif k == "imm":
            v = op[1]
            if ftype:  # integer literal used as a float operand: PTX reads it as the value
                v = f32_to_bits(float(v)) if bits == 32 else f64_to_bits(float(v))
            e = str(v & m)
        elif k == "fimm":
            b, w = op[1], op[2]
            if w != bits:
                val = bits_to_f64(b) if w == 64 else bits_to_f32(b)
                b = f32_to_bits(val) if bits == 32 else f64_to_bits(val)
            e = str(b & m)
        elif k == "sym":
            space, val = self.sym(op[1])
            e = str((val + op[2]) & m) if space != "shared" else \
                f"(({SHARED_SYM} + {val + op[2]}) & {m:#x})"
        elif k == "not":
            return f"(1 - {self.src(op[1], 1)})"
        else:
            raise self.error(f"unsupported source operand `{show_operand(op)}`")
        if signed and bits > 1:
            sb = 1 << (bits - 1)
            return f"(({e} ^ {sb:#x}) - {sb:#x})"
        return e

    def dst(self, op, bits: int, signed: bool = False):
        """Return a function expr -> statement that writes ``expr`` (a ``bits``-wide value)."""
        if op[0] == "sink":
            return lambda e: "pass"
        s = self.slot(op)
        if op[1].decl.special:
            raise self.error(f"special register {op[1]} is read-only")
        rb = op[1].bits
        rm = mask(rb)
        if rb > bits and signed:
            m, sb = mask(bits), 1 << (bits - 1)
            return lambda e: f"r[{s}] = ((((({e}) & {m:#x}) ^ {sb:#x}) - {sb:#x})) & {rm:#x}"
        mm = mask(min(rb, bits))
        return lambda e: f"r[{s}] = ({e}) & {mm:#x}"

    def addr_expr(self, op) -> tuple[str, str | None]:
        """[base+off] -> (python expression, symbol space or None)."""
        if op[0] != "addr":
            raise self.error(f"expected an address operand [..], got `{show_operand(op)}`")
        base, off = op[1], op[2]
        if base[0] == "reg":
            e = self.src(base, base[1].bits)
            return (f"({e} + {off})" if off else e), None
        if base[0] == "imm":
            return str(base[1] + off), None
        if base[0] == "sym":
            space, val = self.sym(base[1])
            return (str(val + off) if space != "shared" else f"({SHARED_SYM} + {val + off})"), space
        raise self.error(f"bad address `{show_operand(op)}`")

    # -- compilation ------------------------------------------------------------------------------
    def compile(self, lines: list[str], ns: dict | None = None, args: str = "t"):
        body = "\n".join("    " + ln for ln in lines) or "    pass"
        src = f"def _f({args}):\n    r = t.r\n{body}\n" if args == "t" else \
            f"def _f({args}):\n{body}\n"
        g = {"M": self.M, "EmulationError": EmulationError, "_f32": bits_to_f32,
             "_b32": f32_to_bits, "_f64": bits_to_f64, "_b64": f64_to_bits}
        if ns:
            g.update(ns)
        try:
            code = compiled(src, f"<ptx line {self.inst.line}>")
        except SyntaxError as e:  # pragma: no cover - internal error
            raise self.error(f"internal codegen error {e}:\n{src}")
        exec(code, g)
        f = g["_f"]
        if args == "t":
            f.body = lines  # its source, for lane runs to inline (lane_runs.py)
        return f


_CODE: dict = {}


def compiled(src: str, name: str):
    """compile(src, name, "exec"), kept per process: a kernel decoded again (each schedule of an
    exploration builds a fresh machine) compiles nothing (code objects hold no machine state)."""
    key = (src, name)
    code = _CODE.get(key)
    if code is None:
        if len(_CODE) >= 50000:
            _CODE.clear()
        code = _CODE[key] = compile(src, name, "exec")
    return code
