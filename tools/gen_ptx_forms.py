#!/usr/bin/env python3
"""Generate tile-sim's table of PTX instruction forms (python/tile_mlir/sim/coverage/forms.json).

Source: the per-instruction syntax files of the ptx-90-parser project (``crates/parser-gen/
ptx_syntax/*.txt`` of github.com/jialunzhang-psu/ptx-90-parser), a transcription of the syntax
blocks of the PTX ISA 9.0 "Instruction Set" chapter: each names an instruction's modifier sets
(``.rnd = { .rn, .rz, .rm, .rp }``).  A transcription is a checklist, not an authority, so every
form it yields is then put to ptxas: a form is a row when ptxas accepts it, at the PTX version our
compiler writes (``.version 8.8``), for one of the targets sm_80, sm_90a, sm_100a; the row records
on which.  What ptxas refuses everywhere is dropped, and counted per syntax line in the data file.

A form is the opcode with every modifier that changes what the instruction computes.  Cache,
eviction and prefetch hints (``.ca``, ``.L2::cache_hint``, ``.L1::evict_last`` ...) and optional
cache-policy operands do not, so the forms are written without them (docs/emulator.md §13).
Texture, surface and video instructions are left out as a block.

Usage: tools/gen_ptx_forms.py <checkout of ptx-90-parser> [--ptxas PATH] [-o forms.json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile

TARGETS = ("sm_80", "sm_90a", "sm_100a")
PTX_VERSION = "8.8"
SYNTAX_DIR = "crates/parser-gen/ptx_syntax"
#: texture, surface and video instructions: left out as a block
LEFT_OUT = {"tex", "tld4", "txq", "suld", "sust", "sured", "suq", "istypep", "vmad", "vop", "vop2",
            "vop4", "vset", "vset2", "vset4", "vsh"}
#: placeholders of hints that do not change results: written absent
HINT_NAMES = re.compile(r"(cop|cache_hint|eviction_priority|prefetch_size|level::|L2::|"
                        r"unified|cache-policy|evict)", re.I)
MAX_PER_LINE = 4096  # a syntax line expanding to more forms is sampled down to this many (reported)


# --------------------------------------------------------------------------------- the grammar
def statements(text: str) -> list[list[str]]:
    """Sections (split at ----- rules) of statements: syntax lines and `.x = {..}` definitions."""
    secs, cur, buf = [], [], ""
    for raw in text.split("\n"):
        ln = raw.split("//")[0].rstrip()
        if re.match(r"^\s*-{5,}", ln):
            if buf.strip():
                cur.append(buf.strip())
            buf = ""
            secs.append(cur)
            cur = []
            continue
        if not ln.strip():
            continue
        buf += " " + ln.strip()
        opened = buf.count("{") - buf.count("}")
        if opened <= 0 and (buf.rstrip().endswith(";") or buf.rstrip().endswith("}")):
            cur.append(buf.strip())
            buf = ""
    if buf.strip():
        cur.append(buf.strip())
    secs.append(cur)
    return [s for s in secs if s]


_DEF = re.compile(r"^((?:\.[\w:]+\s*=\s*)+)\{(.*)\}\s*;?$")


def definitions(stmts) -> dict[str, list[str]]:
    defs = {}
    for s in stmts:
        m = _DEF.match(s)
        if m:
            names = re.findall(r"\.([\w:]+)\s*=", m.group(1))
            vals = [v.strip() for v in m.group(2).split(",") if v.strip()]
            for n in names:
                defs[n] = vals
    return defs


_TOK = re.compile(r"\{[^}]*\}|\.[^.{\s]+|^[A-Za-z_][\w]*")


def opcode_tokens(op: str) -> list[str]:
    toks, i = [], 0
    while i < len(op):
        m = _TOK.match(op, i)
        if not m:
            raise ValueError(f"cannot tokenize `{op}` at {i}")
        toks.append(m.group(0))
        i = m.end()
    return toks


def expand(opcode: str, defs: dict) -> list[str]:
    """Every concrete opcode of a syntax line's opcode (hints absent)."""
    choices = []
    for t in opcode_tokens(opcode):
        if t.startswith("{"):
            inner = t[1:-1].strip()
            parts = re.findall(r"\.[^.\s]+", inner)
            if any(HINT_NAMES.search(p) for p in parts):
                continue
            alts = _alternatives(parts, defs)
            choices.append([""] + alts)
        elif t.startswith("."):
            name = t[1:]
            if name in defs:
                choices.append(["." + v.lstrip(".") for v in defs[name]])
            else:
                choices.append([t])
        else:
            choices.append([t])
    return ["".join(c) for c in itertools.product(*choices)]


def _alternatives(parts, defs):
    per = []
    for p in parts:
        name = p[1:]
        per.append(["." + v.lstrip(".") for v in defs[name]] if name in defs else [p])
    return ["".join(c) for c in itertools.product(*per)]


def syntax_lines(text: str):
    """(syntax line, definitions of its section) of one file."""
    for stmts in statements(text):
        defs = definitions(stmts)
        for s in stmts:
            if _DEF.match(s) or not re.match(r"^[a-z@]", s) or re.match(r"^[\w.:-]+\s*=", s):
                continue
            s = re.sub(r"\.\s+(?=\.?\w)", ".", s)  # `.noftz. vec` (a transcription slip)
            yield s.rstrip(";").strip(), defs


# --------------------------------------------------------------------------------- operands
def _split_operands(text: str) -> list[str]:
    text = re.sub(r"\{\s*,[^}]*\}", "", text)  # optional trailing operands (cache policies...)
    text = re.sub(r"\{\|[^}]*\}", "", text)  # p{|q}
    text = text.replace("{!}", "")
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


WIDTH = {"pred": 1, "b8": 16, "u8": 16, "s8": 16, "b16": 16, "u16": 16, "s16": 16, "f16": 16,
         "bf16": 16, "e4m3x2": 16, "e5m2x2": 16, "e2m1x2": 8, "e2m3x2": 16, "e3m2x2": 16,
         "ue8m0x2": 16, "u16x2": 32, "s16x2": 32, "f16x2": 32, "bf16x2": 32, "b32": 32, "u32": 32,
         "s32": 32, "f32": 32, "tf32": 32, "e2m1x4": 16, "e4m3x4": 32, "e5m2x4": 32,
         "e2m3x4": 32, "e3m2x4": 32, "f32x2": 64, "b64": 64, "u64": 64, "s64": 64, "f64": 64,
         "b128": 128}
REG = {1: "%p1", 8: "%c{}", 16: "%h{}", 32: "%r{}", 64: "%rd{}", 128: "%q{}"}
DECLS = ("\t.reg .pred %p<8>;\n\t.reg .b8 %c<8>;\n\t.reg .b16 %h<8>;\n\t.reg .b32 %r<260>;\n\t.reg .b64 %rd<16>;\n"
         "\t.reg .b128 %q<8>;\n")


def _types(opcode):
    return [p for p in opcode.split(".")[1:] if p in WIDTH]


def _reg(w, i):
    return REG[w].format(i) if w != 1 else f"%p{i}"


def _named(name: str, k: int, w: int) -> str | None:
    """An operand typed by its name in the ISA's syntax (descriptors, tensor-memory addresses,
    immediates, predicates, labels), or None."""
    n = name.strip()
    if re.match(r"^\[.*tmem.*\]$|^\[taddr\]$", n):
        return "[%r9]"
    if n.startswith("[tensorMap"):
        return "[%rd9, {%r1}]"  # its coordinates: one per dimension (instantiate_named)
    if n.startswith("["):
        return "[%rd9]"
    if "|" in n:
        a, b = n.split("|", 1)
        return ("%p1" if a in ("p", "q") else _reg(w if w > 1 else 32, k + 1)) + "|%p2"
    if n in ("tgt", "label", "target", "tgt-label"):
        return "L0"
    if n.startswith("imm") or "immLut" in n:
        return "32" if "count" in n else "0" if "trans" in n else "1"
    if n.endswith("desc") and n != "idesc":
        return _reg(64, k + 1)
    if n in ("idesc", "membermask", "mask", "taddr", "nCols", "ncols", "size", "tx-count",
             "count", "expectCount", "rbits", "offset", "base"):
        return _reg(32, k + 1)
    if re.match(r"^(p|q|pred|enable-input-d|scale-d|waitComplete|.*-pred|predicate)$", n) or \
            n.startswith("enable") or n.startswith("disable"):
        return _reg(1, k + 1)
    return None


#: instructions whose data operands are vectors of registers (sizes found from ptxas's messages)
VECTOR_DATA = ("mma", "wmma", "wgmma", "stmatrix", "tcgen05.st", "tcgen05.ld", "ldmatrix",
               "movmatrix")


def instantiate_named(opcode: str, operands: str, w_default=None) -> str:
    """Strategy "named": every operand typed by its name, the rest of the type's width."""
    ts = _types(opcode)
    w = w_default or (WIDTH[ts[-1]] if ts else 32)
    vec = opcode.startswith(VECTOR_DATA)
    out = []
    for k, o in enumerate(_split_operands(operands)):
        if opcode.startswith("cvta") and o.strip() == "p":
            out.append(_reg(w, k + 1))
            continue
        if "size" in o and "cp" in o:  # cp.async's cp-size
            out.append("16")
            continue
        t = _named(o, k, w)
        dim = re.search(r"\.([1-5])d\b", opcode)
        if t and t.startswith("[%rd9, {") and dim:
            t = "[%rd9, {" + ", ".join(f"%r{1 + j}" for j in range(int(dim.group(1)))) + "}]"
        shape = re.search(r"\.m64n(\d+)k\d+", opcode)
        if t is None and opcode.startswith("wgmma") and shape and o.strip() == "d":
            n = int(shape.group(1))  # the accumulator fragment: N/2 registers, N/4 of packed f16
            cnt = n // 4 if ".f16.f16" in opcode and re.search(r"aligned\.m\w+\.f16\.", opcode) \
                else n // 2
            t = "{" + ", ".join(f"%r{1 + j}" for j in range(cnt)) + "}"
        elif t is None and opcode.startswith("wgmma") and o.strip() == "a":
            t = "{%r1, %r2, %r3, %r4}"
        elif t is None and vec and re.match(r"^[a-z]$", o.strip()):
            t = "{" + ", ".join(f"%r{1 + j}" for j in range(4)) + "}"
        out.append(t if t is not None else _reg(max(w, 8) if w != 1 else 1, k + 1))
    return f"{opcode} {', '.join(out)};" if out else f"{opcode};"


def repair(text: str, msg: str) -> str | None:
    """Another typing of the operands, from ptxas's message about them; None if it says nothing."""
    op, _, rest = text.rstrip(";").partition(" ")
    ops = _split_operands(rest)
    m = re.search(r"[Vv]ector of size (\d+) is expected for argument (\d+)", msg)
    m2 = re.search(r"[Vv]ector expected for argument (\d+)", msg)
    m3 = re.search(r"[Pp]redicate output expected", msg)
    m4 = re.search(r"Argument (\d+) of instruction '[^']*': Argument vector size mismatch", msg)
    if m4:  # try the next size
        k = int(m4.group(1))
        if k >= len(ops) or not ops[k].startswith("{"):
            return None
        cur = len(_split_operands(ops[k][1:-1]))
        n = {4: 2, 2: 8, 8: 16, 16: 32, 32: 64, 64: 128}.get(cur)  # 4 came first
        if n is None:
            return None
        kind = re.match(r"^\{(%[a-z]+)", ops[k]).group(1)
        ops[k] = "{" + ", ".join(f"{kind}{1 + j}" for j in range(n)) + "}" if n > 1 else f"{kind}1"
        return f"{op} {', '.join(ops)};"
    if m:
        n, k = int(m.group(1)), int(m.group(2))
    elif m2:
        k = int(m2.group(1))
        n = 4
    elif m3:
        ops[0] = "%p1"
        return f"{op} {', '.join(ops)};"
    else:
        return None
    if k >= len(ops):
        return None
    cur = ops[k]
    reg = re.match(r"^\{?(%[a-z]+)", cur)
    kind = reg.group(1) if reg else "%r"
    if cur.startswith("{") and len(_split_operands(cur[1:-1])) == n:
        if m2:  # tried 4: try 2, then 8
            n = {4: 2, 2: 8}.get(n)
            if n is None:
                return None
        else:
            return None
    ops[k] = "{" + ", ".join(f"{kind}{1 + j}" for j in range(n)) + "}"
    return f"{op} {', '.join(ops)};"


def instantiate(opcode: str, operands: str, strategy: int) -> str | None:
    """One instruction text of ``opcode`` with operands typed by ``strategy`` (a guess that ptxas
    confirms or refuses); None when the strategy does not apply."""
    ops = _split_operands(operands)
    ts = _types(opcode)
    w_last = WIDTH[ts[-1]] if ts else 32
    w_first = WIDTH[ts[0]] if ts else 32
    out = []
    for k, o in enumerate(ops):
        name = o.strip()
        if name.startswith("["):
            out.append("[%rd9]")
            continue
        if name.startswith("{"):
            n = len(_split_operands(name[1:-1]))
            w = w_last if strategy != 3 else 32
            out.append("{" + ", ".join(_reg(w, 1 + j) for j in range(n)) + "}")
            continue
        is_pred = bool(re.match(r"^(p|q|pred|p\|q|.*pred.*)$", name)) or name in ("p|q",)
        if name == "p|q":
            out.append("%p1|%p2")
            continue
        if is_pred and not (strategy == 6 and k == 0):
            out.append(_reg(1, k + 1))
            continue
        if re.search(r"imm|lut|Lut|mask$|^N$|^n$", name) and strategy in (4, 5):
            out.append("1")
            continue
        if strategy == 0:
            w = w_last
        elif strategy == 1:  # dst of the first type, sources of the last (cvt.dtype.atype)
            w = w_first if k == 0 else w_last
        elif strategy == 2:  # wide: dst twice the width
            w = 2 * w_last if k == 0 else w_last
        elif strategy == 3:
            w = 32
        elif strategy == 4:  # shifts, bit fields: extra operands u32
            w = w_last if k <= 1 else 32
        elif strategy == 5:
            w = 64
        elif strategy == 6:  # a predicate destination, the rest of the type
            w = 1 if k == 0 else w_last
        elif strategy == 7:  # dst 32 bits, sources of the type (popc, clz, bfind of 64)
            w = 32 if k == 0 else w_last
        elif strategy == 8:  # selp-like: last source a predicate
            w = 1 if k == len(ops) - 1 else w_last
        elif strategy == 9:  # mixed precision (fma.rn.f32.bf16): d and the addend of the first type
            w = w_first if k in (0, len(ops) - 1) else w_last
        else:
            return None
        out.append(_reg(min(max(w, 8), 128) if w != 1 else 1, k + 1))
    return f"{opcode} {', '.join(out)};" if out else f"{opcode};"


STRATEGIES = range(10)


# --------------------------------------------------------------------------------- ptxas
#: ptxas's words for operands it cannot take: another typing of the operands may pass
OPERAND_ERROR = re.compile(r"Arguments mismatch|[Oo]perand|[Aa]rgument|[Vv]ector|[Pp]redicate output")


def ptxas_accepts(ptxas: str, target: str, texts: list[str], why: dict | None = None) -> set[int]:
    """Indexes of the instruction texts ptxas accepts for ``target`` (one kernel, rerun without
    the refused lines until it assembles); ``why`` collects ptxas's message for each refused one."""
    out: set[int] = set()
    for lo in range(0, len(texts), 400):
        sub = {} if why is not None else None
        out |= {lo + i for i in _accepts(ptxas, target, texts[lo:lo + 400], sub)}
        if why is not None:
            why.update({lo + i: m for i, m in sub.items()})
    return out


def _accepts(ptxas, target, texts, why=None):
    pending = dict(enumerate(texts))
    refused: set[int] = set()
    for _ in range(len(texts) + 1):
        items = [(i, t) for i, t in pending.items() if i not in refused]
        if not items:
            return set()
        body, where = [], {}
        head = (f".version {PTX_VERSION}\n.target {target}\n.address_size 64\n"
                ".visible .entry k()\n{\n" + DECLS + "L0:\n")
        line = head.count("\n") + 1
        for i, t in items:
            body.append("\t" + t)
            where[line] = i
            line += 1
        src = head + "\n".join(body) + "\n\tret;\n}\n"
        with tempfile.TemporaryDirectory() as tmp:
            p = os.path.join(tmp, "k.ptx")
            with open(p, "w") as f:
                f.write(src)
            r = subprocess.run([ptxas, f"-arch={target}", p, "-o", os.path.join(tmp, "k.o")],
                               capture_output=True, text=True)
        if r.returncode == 0:
            return {i for i, _ in items}
        found = re.findall(r"line (\d+); (?:error|fatal)\s*:\s*(.*)", r.stderr)
        bad = {where[int(m)] for m, _ in found if int(m) in where}
        if why is not None:
            for m, msg in found:
                if int(m) in where:
                    why.setdefault(where[int(m)], msg.strip())
        if not bad:  # ptxas failed without naming a line (it crashed): halve the chunk
            if len(items) == 1:
                refused.add(items[0][0])
                continue
            half = len(items) // 2
            ok = set()
            for part in (items[:half], items[half:]):
                sub = _accepts(ptxas, target, [t for _, t in part], None)
                ok |= {part[j][0] for j in sub}
            return ok
        refused |= bad
    raise RuntimeError("ptxas: too many rounds")


def _named_phase(args, todo, rows, tgt):
    """Forms not placed yet: the named typing, ptxas's messages about operands, and for
    mma-like forms every combination of fragment sizes, on one target."""
    # the named typing, then ptxas's messages about operands, until nothing changes 
    texts = {form: instantiate_named(form, todo[form][2]) for form in todo if form not in rows}
    for _ in range(12):
        if not texts:
            break
        keys = list(texts)
        why = {}
        ok = ptxas_accepts(args.ptxas, tgt, [texts[k] for k in keys], why)
        nxt = {}
        for i, k in enumerate(keys):
            if i in ok:
                rows[k] = {"form": k, "file": todo[k][0], "text": texts[k], "targets": []}
            elif i in why:
                t = repair(texts[k], why[i])
                if t is not None and t != texts[k]:
                    nxt[k] = t
        texts = nxt
    # mma-like forms: every combination of fragment sizes for their data operands 
    mm = [k for k in todo if k not in rows and k.startswith(("mma", "wmma.mma"))]
    combos = {}
    for k in mm:
        base = instantiate_named(k, todo[k][2])
        op, _, rest = base.rstrip(";").partition(" ")
        ops = _split_operands(rest)
        data = [i for i, o in enumerate(ops) if o.startswith("{")][:4]
        for sizes in itertools.product((1, 2, 4, 8), repeat=len(data)):
            o2 = list(ops)
            for i, z in zip(data, sizes):
                kind = "%rd" if ".f64" in op else "%r"
                o2[i] = "{" + ", ".join(f"{kind}{1 + j}" for j in range(z)) + "}"
            combos.setdefault(k, []).append(f"{op} {', '.join(o2)};")
    flat = [(k, t) for k, ts in combos.items() for t in ts]
    if flat:
        ok = ptxas_accepts(args.ptxas, tgt, [t for _, t in flat])
        for i in sorted(ok):
            k, t = flat[i]
            rows.setdefault(k, {"form": k, "file": todo[k][0], "text": t, "targets": []})


def write(out: dict, path: str) -> None:
    """The data file, one form per line (diffs show the forms that changed)."""
    with open(path, "w") as fh:
        fh.write("{\n")
        for k in ("source", "dropped", "sampled"):
            fh.write(f"{json.dumps(k)}: {json.dumps(out[k], sort_keys=True)},\n")
        fh.write('"forms": [\n')
        fh.write(",\n".join(json.dumps(r) for r in out["forms"]))
        fh.write("\n]}\n")


# --------------------------------------------------------------------------------- main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkout")
    ap.add_argument("--ptxas", default="ptxas")
    ap.add_argument("-o", "--output", default=os.path.join(os.path.dirname(__file__), "..", "python",
                                                           "tile_mlir", "sim", "coverage", "forms.json"))
    ap.add_argument("--only", help="comma-separated instruction files (for a quick look)")
    ap.add_argument("--commit", help="the grammar's commit, when the checkout is an export")
    args = ap.parse_args(argv)
    sdir = os.path.join(args.checkout, SYNTAX_DIR)
    commit = subprocess.run(["git", "-C", args.checkout, "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or args.commit or "unknown"
    ver = subprocess.run([args.ptxas, "--version"], capture_output=True, text=True).stdout.strip().split("\n")[-2:]
    files = sorted(f[:-4] for f in os.listdir(sdir) if f.endswith(".txt"))
    if args.only:
        files = [f for f in files if f in args.only.split(",")]
    cands, dropped, sampled = {}, {}, {}
    for f in files:
        if f in LEFT_OUT:
            continue
        text = open(os.path.join(sdir, f + ".txt")).read()
        for line, defs in syntax_lines(text):
            opcode, _, operands = line.partition(" ")
            forms = sorted(set(expand(opcode, defs)))
            if len(forms) > MAX_PER_LINE:
                sampled[line] = len(forms)
                forms = forms[:: (len(forms) + MAX_PER_LINE - 1) // MAX_PER_LINE]
            for form in forms:
                cands.setdefault(form, (f, line, operands.strip()))
    todo = dict(cands)
    rows, gone, reasons = {}, {}, {}
    for strat in STRATEGIES:
        if not todo:
            break
        texts = {}
        for form, (f, line, operands) in todo.items():
            t = instantiate(form, operands, strat)
            if t is not None:
                texts[form] = t
        keys = list(texts)
        operand_only = {k: True for k in keys}
        for target in TARGETS:
            why: dict = {}
            ok = ptxas_accepts(args.ptxas, target, [texts[k] for k in keys], why)
            for i in ok:
                form = keys[i]
                rows.setdefault(form, {"form": form, "file": todo[form][0], "text": texts[form],
                                       "targets": []})["targets"].append(target)
            for i, msg in why.items():  # refused for what it is on this target, or its operands
                if OPERAND_ERROR.search(msg):
                    operand_only[keys[i]] = "operands"
                elif operand_only[keys[i]] is True:
                    operand_only[keys[i]] = False
                    reasons[keys[i]] = msg
        for form in list(todo):
            if form in rows:
                del todo[form]
            elif form in operand_only and operand_only[form] is False:
                gone[form] = todo.pop(form)  # refused for what it is, not for its operands
        print(f"strategy {strat}: {len(rows)} forms accepted, {len(todo)} left", file=sys.stderr)
    for tgt in ("sm_100a", "sm_90a", "sm_80"):  # the most permissive target first
        _named_phase(args, todo, rows, tgt)
    fixed = [k for k in todo if k in rows and not rows[k]["targets"]]
    for target in TARGETS:
        ok = ptxas_accepts(args.ptxas, target, [rows[k]["text"] for k in fixed])
        for i in ok:
            rows[fixed[i]]["targets"].append(target)
    for k in fixed:
        del todo[k]
        if not rows[k]["targets"]:
            del rows[k]
    print(f"named typing and repairs: {len(fixed)} more forms", file=sys.stderr)
    for form, (f, line, _) in list(todo.items()) + list(gone.items()):
        dropped.setdefault(f"{f}: {line}", 0)
        dropped[f"{f}: {line}"] += 1
    out = {"source": {"grammar": "github.com/jialunzhang-psu/ptx-90-parser " + SYNTAX_DIR,
                      "grammar_commit": commit, "grammar_ptx_isa": "9.0",
                      "ptx_version": PTX_VERSION, "ptxas": " ".join(ver), "targets": list(TARGETS),
                      "left_out": sorted(LEFT_OUT)},
           "dropped": dict(sorted(dropped.items())), "sampled": sampled,
           "forms": [rows[k] for k in sorted(rows, key=lambda k: (rows[k]["file"], k))]}
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    write(out, args.output)
    print(f"{len(rows)} forms, {sum(dropped.values())} refused by ptxas on every target "
          f"-> {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
