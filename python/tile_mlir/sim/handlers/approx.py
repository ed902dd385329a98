"""The PTX ``.approx`` math instructions: ex2, lg2, rcp, rsqrt, sqrt, sin, cos, tanh (every form
sm_80 .. sm_100a define), executed by the bit-exact models of approx_math / approx_f64 / approx_half /
approx_trig, which were checked against an sm_90 GPU over every input (docs/emulator.md §14;
Blackwell is assumed to give the same results, Table A row A51).

``FORMS`` (instruction form -> model) is the one list of supported forms; a form not in it is refused
at decode with the forms that exist.
"""

from __future__ import annotations

import numpy as np

from .. import approx_f64 as af
from .. import approx_half as ah
from .. import approx_math as am
from .. import approx_trig as at
from ..approx_tables import table
from ..fast_f32 import ex2_approx_ftz

_F32 = {"ex2": am.ex2_f32, "lg2": am.lg2_f32, "rcp": am.rcp_f32, "rsqrt": am.rsqrt_f32,
        "sqrt": am.sqrt_f32, "sin": at.sin_f32, "cos": at.cos_f32}

# form -> (model over an array of bit patterns, bit width)
FORMS: dict[str, tuple] = {}
for _m, _fn in _F32.items():
    FORMS[f"{_m}.approx.f32"] = ((lambda f: lambda a: f(a, False))(_fn), 32)
    FORMS[f"{_m}.approx.ftz.f32"] = ((lambda f: lambda a: f(a, True))(_fn), 32)
FORMS["tanh.approx.f32"] = (at.tanh_f32, 32)
FORMS["rcp.approx.ftz.f64"] = (af.mufu_rcp64h, 64)
FORMS["rsqrt.approx.ftz.f64"] = (af.mufu_rsq64h, 64)
FORMS["rsqrt.approx.f64"] = (af.rsqrt_f64, 64)
for _form, _fn in ah.MODELS.items():
    FORMS[_form] = (_fn, 32 if _form.endswith("x2") else 16)

_DTYPE = {16: np.uint16, 32: np.uint32, 64: np.uint64}


_SCALAR: dict[str, object] = {}
_MEMO_LIMIT = 1 << 16


def scalar(form: str):
    """The model of `form` on one bit pattern (a Python int), memoised per input (the models are
    pure functions; a memo of up to 2^16 inputs per form)."""
    if form in _SCALAR:
        return _SCALAR[form]
    if form == "ex2.approx.ftz.f32":  # a softmax's per-element exp: the model on one int (sim/fast_f32.py)
        pos, neg = table("ex2_pos"), table("ex2_neg")
        _SCALAR[form] = f = lambda v: ex2_approx_ftz(v, pos, neg)  # noqa: E731
        return f
    fn, w = FORMS[form]
    dt = _DTYPE[w]
    memo: dict[int, int] = {}

    def f(v: int) -> int:
        r = memo.get(v)
        if r is None:
            r = int(fn(np.array([v], dtype=dt))[0])
            if len(memo) < _MEMO_LIMIT:
                memo[v] = r
        return r
    _SCALAR[form] = f
    return f


def decode_approx(d, inst):
    """``<mnemonic>.approx{.ftz}.<type> d, a``."""
    form = ".".join(inst.parts)
    if form not in FORMS:
        known = sorted(f for f in FORMS if f.split(".")[0] == inst.parts[0])
        raise d.error(f"`{form}` is not an instruction form of the PTX ISA for sm_80 to sm_100a; "
                      f"the .approx forms of {inst.parts[0]} are {', '.join(known)}")
    w = FORMS[form][1]
    dd, a = d.operands(2)
    return d.compile([d.dst(dd, w)(f"_approx({d.src(a, w, ftype=w > 16)})")],
                     {"_approx": scalar(form)})
