"""Malformed instructions get a located diagnostic from tile-sim's decoders, never an exception of the
decoder's own (a KeyError on a type it did not check, an index past the operands it was given).

The mutants are made from every row of the ISA coverage table (sim/coverage/forms.json): a modifier
dropped or replaced, a modifier added, an operand dropped, repeated, retyped or replaced by an
immediate too large for any register.  tile-sim's decoder turns an unchecked decoder failure into an
"internal error" diagnostic at the PTX line (opcodes.decode_instruction); these tests count those as
bugs, as the adversary campaigns do (bench/adversary.py)."""
from __future__ import annotations

import random
import re

import numpy as np
import pytest

import tiers
from tile_mlir.sim import EmulationError, run_ptx
from tile_mlir.sim.coverage import table

# tokens a typo or a mutation puts where a modifier or a type was
TOKENS = ("rn", "f32", "u32", "b8", "x", "", "ftz", "sync", "aligned", "1", "s64", "pred", "f16x2", "v4",
          "shared::cta", "0", "relu", "satfinite")
_INST = re.compile(r"^(@!?%\w+\s+)?([\w.:]+)(\s*)(.*)$", re.S)


def mutants(text: str, rnd: random.Random) -> list[str]:
    m = _INST.match(text)
    if not m:
        return []
    guard, opcode, space, rest = m.group(1) or "", m.group(2), m.group(3), m.group(4)
    parts = opcode.split(".")
    out = []
    for i in range(1, len(parts)):
        out.append(guard + ".".join(parts[:i] + parts[i + 1:]) + space + rest)
        out.append(guard + ".".join(parts[:i] + [rnd.choice(TOKENS)] + parts[i + 1:]) + space + rest)
    out.append(guard + opcode + "." + rnd.choice(TOKENS) + space + rest)
    ops = [o.strip() for o in rest.rstrip(";").split(",")]
    if len(ops) > 1:
        k = rnd.randrange(len(ops))
        for new in (ops[:k] + ops[k + 1:], ops + [ops[-1]],
                    ops[:k] + ["%rd1" if "%r" in ops[k] else "%r1"] + ops[k + 1:],
                    ops[:k] + ["-1"] + ops[k + 1:], ops[:k] + ["0x7fffffffffffffffff"] + ops[k + 1:]):
            out.append(guard + opcode + space + ", ".join(new) + ";")
    return out


@pytest.mark.tiered  # make test: every 32nd row's mutants; make test-slow: every row's (~124,000)
def test_no_decoder_fails_on_a_mutated_form():
    rnd = random.Random(0)
    rows = table.load()["forms"]
    step = 32 if tiers.FAST else 1
    texts = [t for r in rows[::step] for t in mutants(r["text"], rnd)]
    reasons = table.decode_check(texts)
    bad = [(t, r) for t, r in zip(texts, reasons) if r and "internal error" in r]
    assert len(texts) > 7000 // step
    assert not bad, f"{len(bad)} of {len(texts)} mutants: " + "\n".join(f"{t}  ->  {r}" for t, r in bad[:20])


def _kernel(body: str, params: str = ".param .u64 p") -> str:
    return (".version 8.8\n.target sm_100a\n.address_size 64\n"
            f".visible .entry k({params})\n{{\n{table.DECLS}\n{body}\nret;\n}}\n")


@pytest.mark.parametrize("inst, says", [
    ("fma.rn %r1, %r2, %r3, %r4;", r"ends in \.rn, not a floating-point type"),  # the adversary's case
    ("add.ftz %r1, %r2, %r3;", r"unknown type suffix \.ftz"),
    ("copysign %r1, %r2, %r3;", r"needs a type"),
    ("mapa %r1, %r2, %r3;", r"mapa needs a type"),
    ("cvt.f16.pred %h1, %h2;", r"needs \.dtype\.atype"),
    ("cvt.rn.relu.bf16x2 %r1, %r2, %r3;", r"not a form the ISA defines"),
    ("atom.acq_rel.cas.b128 %q1, [%rd9], %q3;", r"cas needs d, \[a\], b, c"),
    ("isspacep %p1, %rd2;", r"isspacep needs one state space"),
    ("tcgen05.ld.sync.aligned.16x32bx2.x2.pack::16b.b32 {%r1, %r2}, [%r9], 0x7fffffffffffffffff;",
     r"not a 32-bit unsigned immediate"),
])
def test_malformed_form_is_a_located_diagnostic(inst, says):
    with pytest.raises(EmulationError, match=says) as e:
        run_ptx(_kernel(inst), "k", [np.zeros(4, np.uint8)], grid=(1, 1, 1), block=(32, 1, 1))
    assert e.value.line == _kernel(inst).splitlines().index(inst) + 1
    assert "internal error" not in e.value.message


@pytest.mark.parametrize("decl", [".param .align 8 .b8 p[0]", ".param .b32 p[4][0]"])
def test_a_parameter_of_no_bytes_is_refused_at_its_line(decl):
    # (the adversary's case: a by-value struct parameter mutated to `[0]`, which ptxas refuses as an
    # incomplete array; an integer argument for it used to reach a negative shift)
    with pytest.raises(EmulationError, match=r"line 4: parameter `p` has no bytes"):
        run_ptx(_kernel("", decl), "k", [0], grid=(1, 1, 1), block=(32, 1, 1))
