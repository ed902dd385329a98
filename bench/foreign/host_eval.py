"""A small interpreter of the CuTe DSL's lowered host function (LLVM dialect text): it follows the
host's control flow from its entry and evaluates the integer arithmetic that builds the kernel's
by-value arguments (e.g. FastDivmod's multiplier and shift, computed in a loop), so the manifest
records what the host code passes rather than a value worked out again here.

Only what those arguments need is evaluated: constants, poison/undef aggregates, insertvalue,
integer arithmetic, comparisons, casts, select and branches. Anything else (calls, loads, pointer
values) yields None, and a branch on None stops the walk (its arguments then stay unknown).

``memory=True`` (a host function that launches several kernels, bench/foreign/launch_seq.py) also
follows the host's own stack memory and walks past each launch: ``alloca`` makes an object,
``getelementptr`` an address in it (or, on a host pointer argument ``"ptr:<buffer>"``, the byte
offset ``"ptr:<buffer>+<n>"``), ``store`` / ``load`` through those addresses, and a call of the
CUDA runtime returns 0 (cudaSuccess), so the launch-attribute loops between launches run.
"""
from __future__ import annotations

import json
import re

import numpy as np

CMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "ult": lambda a, b: a < b,
       "ule": lambda a, b: a <= b, "ugt": lambda a, b: a > b, "uge": lambda a, b: a >= b}
SCMP = {"slt": lambda a, b: a < b, "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b,
        "sge": lambda a, b: a >= b}
BIN = {"add": lambda a, b, w: a + b, "sub": lambda a, b, w: a - b, "mul": lambda a, b, w: a * b,
       "udiv": lambda a, b, w: a // b if b else None, "urem": lambda a, b, w: a % b if b else None,
       "shl": lambda a, b, w: a << b if b < w else 0, "lshr": lambda a, b, w: a >> b,
       "sdiv": lambda a, b, w: _sdiv(_signed(a, w), _signed(b, w)),
       "srem": lambda a, b, w: _srem(_signed(a, w), _signed(b, w)),
       "ashr": lambda a, b, w: _signed(a, w) >> b, "and": lambda a, b, w: a & b, "or": lambda a, b, w: a | b, "xor": lambda a, b, w: a ^ b}


#: f32 / f64 arithmetic on bit patterns, rounded as the host's IEEE arithmetic rounds
FBIN = {"fadd": lambda a, b: a + b, "fsub": lambda a, b: a - b, "fmul": lambda a, b: a * b,
        "fdiv": lambda a, b: a / b}
FTYPES = {"f32": (np.float32, np.uint32), "f64": (np.float64, np.uint64)}


def _fval(bits, t):
    return np.array(bits, FTYPES[t][1]).view(FTYPES[t][0])[()]


def _fbits(v, t):
    return int(np.array(v, FTYPES[t][0]).view(FTYPES[t][1]))


def _sdiv(a, b):  # C's: truncated toward zero
    return None if not b else (abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1)


def _srem(a, b):
    q = _sdiv(a, b)
    return None if q is None else a - q * b


def _width(t):
    m = re.fullmatch(r"i(\d+)", t.strip())
    return int(m.group(1)) if m else None


def _signed(v, w):
    return v - (1 << w) if v >> (w - 1) & 1 else v


def parse_blocks(fn):
    """{block name: (argument names, [op lines])}; the entry block is ``^entry``."""
    blocks, name, args, ops = {}, "^entry", [], []
    for line in fn.split("\n")[1:]:
        s = line.strip()
        m = re.match(r"(\^bb\d+)(?:\(([^)]*)\))?:", s)
        if m:
            blocks[name] = (args, ops)
            name, ops = m.group(1), []
            args = re.findall(r"(%\w+):", m.group(2) or "")
            continue
        if s:
            ops.append(s)
    blocks[name] = (args, ops)
    return blocks


def _targets(text):
    """[(block, [argument names])] of a br / cond_br's successors."""
    return [(b, re.findall(r"%\w+", a or "")) for b, a in
            re.findall(r"(\^bb\d+)(?:\(([^):]*)(?:: [^)]*)?\))?", text)]


def evaluate(fn, value_of_aggregate, limit=100000, args=None, memory=False):
    """Run the host function, its integer arguments bound by ``args`` ({"%arg5": 256, ..}: a
    run-time problem shape); returns its environment {SSA name: value}. ``memory``: follow stack
    memory and walk past the launches (the module docstring)."""
    blocks = parse_blocks(fn)
    env = dict(args or {})
    mem = Memory() if memory else None

    def get(x):
        return env.get(x)

    block, steps = "^entry", 0
    while block is not None and steps < limit:
        _, ops = blocks[block]
        block = None
        for s in ops:
            steps += 1
            if s.startswith("llvm.br "):
                (b, args), = _targets(s[len("llvm.br "):])
                vals = [get(a) for a in args]
                for n, v in zip(blocks[b][0], vals):
                    env[n] = v
                block = b
                break
            if s.startswith("llvm.cond_br "):
                c = re.match(r"llvm\.cond_br (%\w+)", s).group(1)
                if get(c) is None:
                    return env
                tt = _targets(s)
                b, args = tt[0] if get(c) else tt[1]
                vals = [get(a) for a in args]
                for n, v in zip(blocks[b][0], vals):
                    env[n] = v
                block = b
                break
            if s.startswith("llvm.return") or ("@_cudaLaunchKernelEx" in s and mem is None):
                return env
            if mem is not None and s.startswith("llvm.store "):
                mem.store(s, get)
                continue
            m = re.match(r"(%\w+) = llvm\.([a-z_.]+)\s*(.*)", s)
            if not m and (a := re.match(r'(%\w+) = "llvm\.intr\.abs"\((%\w+)\).*: \((i\d+)\)', s)):
                v, w = get(a.group(2)), _width(a.group(3))  # |x| as the two's complement wraps
                env[a.group(1)] = None if not isinstance(v, int) else abs(_signed(v, w)) & ((1 << w) - 1)
                continue
            if not m:
                continue
            name, op, rest = m.groups()
            if mem is not None and op in Memory.OPS:
                env[name] = mem.op(op, rest, get)
            else:
                env[name] = _op(op, rest, get, value_of_aggregate)
    return env


class Memory:
    """The host function's stack objects: an address is (object id, index path) with trailing
    zero indices dropped (``p[0, 0]`` is ``p``), a host pointer argument's ``"ptr:<buffer>[+n]"``
    moves by bytes."""
    OPS = ("alloca", "getelementptr", "load", "call", "mlir.addressof")
    BYTES = {"i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8}

    def __init__(self):
        self.cells, self.count = {}, 0

    @staticmethod
    def _key(path):
        path = tuple(path)
        while path and path[-1] == 0:
            path = path[:-1]
        return path

    def op(self, op, rest, get):
        if op == "alloca":
            self.count += 1
            return ("mem", self.count, ())
        if op == "mlir.addressof":
            return ("sym", rest.split()[0], ())
        if op == "call":  # the CUDA runtime: success; anything else unknown
            return 0 if re.match(r"@_cuda\w+\(", rest) else None
        if op == "load":
            p = get(re.match(r"(%\w+)", rest).group(1))
            return self.cells.get((p[1], self._key(p[2]))) if isinstance(p, tuple) else None
        m = re.match(r"(?:inbounds )?(%\w+)\[([^\]]*)\] : .*, (!?[\w.<>]+)", rest)
        if not m:
            return None
        p = get(m.group(1))
        idx = [int(x) if re.fullmatch(r"-?\d+", x.strip()) else get(x.strip())
               for x in m.group(2).split(",")]
        if any(not isinstance(i, int) for i in idx):
            return None
        if isinstance(p, str) and p.startswith("ptr:") and len(idx) == 1:
            size = self.BYTES.get(m.group(3).removeprefix("!llvm."))
            if size is None:
                return None
            name, _, off = p[4:].partition("+")
            off = int(off or 0) + idx[0] * size
            return f"ptr:{name}+{off}" if off else f"ptr:{name}"
        if not isinstance(p, tuple):
            return None
        path = list(p[2]) or [0]
        path[-1] += idx[0]
        return (p[0], p[1], self._key(path + idx[1:]))

    def store(self, s, get):
        m = re.match(r"llvm\.store (%\w+), (%\w+)", s)
        p = get(m.group(2))
        if isinstance(p, tuple):
            self.cells[(p[1], self._key(p[2]))] = get(m.group(1))


def _float_op(op, rest, get):
    """f32 / f64 constants, arithmetic and conversions (a host-side softmax scale times log2 e)."""
    if op == "mlir.constant":
        m = re.match(r"\((-?[\d.]+(?:e[+-]?\d+)?) : (f32|f64)\) : (f32|f64)", rest)
        return _fbits(float(m.group(1)), m.group(2)) if m else None
    if op in FBIN:
        m = re.match(r"(%\w+), (%\w+)(?: \{[^}]*\})? : (f32|f64)$", rest.strip())
        if not m or not all(isinstance(get(x), int) for x in m.group(1, 2)):
            return None
        t = m.group(3)
        with np.errstate(all="ignore"):
            return _fbits(FBIN[op](_fval(get(m.group(1)), t), _fval(get(m.group(2)), t)), t)
    m = re.match(r"(%\w+)(?: \{[^}]*\})? : (f32|f64) to (f32|f64)", rest)
    if not m or not isinstance(get(m.group(1)), int):
        return None
    return _fbits(_fval(get(m.group(1)), m.group(2)), m.group(3))


def _op(op, rest, get, value_of_aggregate):
    if op == "mlir.constant" and re.search(r": f(32|64)\)", rest):
        return _float_op(op, rest, get)
    if op in FBIN or op in ("fpext", "fptrunc"):
        return _float_op(op, rest, get)
    if op == "mlir.constant":
        if b := re.match(r"\((true|false)\) : i1", rest):  # i1 literals print bare
            return int(b.group(1) == "true")
        m = re.match(r"\((-?\d+|true|false|dense<(-?\d+)> : vector<(\d+)xi(\d+)>) : (i\d+)?", rest)
        if not m:
            return None
        lit, dense, n, ew, t = m.groups()
        if dense is not None:
            return [int(dense) & ((1 << int(ew)) - 1)] * int(n)
        if lit in ("true", "false"):
            return int(lit == "true")
        w = _width(t) if t else None  # values are unsigned bit patterns, as LLVM's are
        return int(lit) & ((1 << w) - 1) if w else None
    if op in ("mlir.poison", "mlir.undef"):
        t = rest.lstrip(": ").strip()
        return value_of_aggregate(t) if t.startswith("!llvm.struct") else None
    if op == "insertvalue":
        m = re.match(r"(%\w+), (%\w+)\[([\d, ]+)\]", rest)
        agg = get(m.group(2))
        if not isinstance(agg, list):
            return None
        new = json.loads(json.dumps(agg))
        *path, last = [int(i) for i in m.group(3).split(",")]
        node = new
        for i in path:
            node = node[i]
        node[last] = get(m.group(1))
        return new
    if op == "extractvalue":
        m = re.match(r"(%\w+)\[([\d, ]+)\]", rest)
        node = get(m.group(1))
        for i in (int(i) for i in m.group(2).split(",")):
            if not isinstance(node, list):
                return None
            node = node[i]
        return node
    if op in BIN:
        m = re.match(r"(%\w+), (%\w+)(?: overflow<[^>]*>)? : (i\d+)", rest)
        if not m:
            return None
        a, b, w = get(m.group(1)), get(m.group(2)), _width(m.group(3))
        if not isinstance(a, int) or not isinstance(b, int):
            return None
        v = BIN[op](a, b, w)
        return None if v is None else v & ((1 << w) - 1)
    if op == "icmp":
        m = re.match(r"\"(\w+)\" (%\w+), (%\w+) : (i\d+)", rest)
        pred, a, b, w = m.group(1), get(m.group(2)), get(m.group(3)), _width(m.group(4))
        if not isinstance(a, int) or not isinstance(b, int):
            return None
        if pred in SCMP:
            return int(SCMP[pred](_signed(a, w), _signed(b, w)))
        return int(CMP[pred](a, b))
    if op in ("zext", "sext", "trunc"):
        m = re.match(r"(%\w+) : (i\d+) to (i\d+)", rest)
        a, w0, w1 = get(m.group(1)), _width(m.group(2)), _width(m.group(3))
        if not isinstance(a, int):
            return None
        if op == "sext":
            a = _signed(a, w0)
        return a & ((1 << w1) - 1)
    if op == "select":
        m = re.match(r"(%\w+), (%\w+), (%\w+)", rest)
        c = get(m.group(1))
        return None if c is None else get(m.group(2) if c else m.group(3))
    return None
