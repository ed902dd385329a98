"""cp.reduce.async.bulk{.tensor} on tile-sim: every row of the ISA coverage table registered to this
test reduces a shared-memory source into its destination (a .shared::cluster buffer completing on
an mbarrier, global memory completing at cp.async.bulk.wait_group, a tensor map's box), checked
against numpy / ml_dtypes built here: integers wrap, min/max by signedness, inc/dec as the ISA
defines them, float add rounded to nearest even, float min/max with -0 below +0 and a NaN losing."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tiers
from isa_harness import isa_rows
from tile_mlir.sim import TensorMap, run_ptx

T = "test/python/sim/test_isa_bulk_reduce.py::"
N = 64  # bytes reduced by a non-tensor row
NP = {"b32": np.uint32, "u32": np.uint32, "s32": np.int32, "b64": np.uint64, "u64": np.uint64,
      "s64": np.int64, "f32": np.float32, "f64": np.float64, "f16": np.float16,
      "bf16": ml_dtypes.bfloat16}
MAP = {"u32": "uint32", "s32": "int32", "u64": "uint64", "s64": "int64", "f32": "float32",
       "f16": "float16", "bf16": "bfloat16", "b32": "uint32", "b64": "int64"}
#: per operation, the types a tensor row is run with (row i takes the (i mod n)-th)
TENSOR_TYPES = {"add": ("f32", "s32", "f16", "u32", "bf16", "u64"), "min": ("s32", "bf16", "u64", "f16", "s64", "u32"),
                "max": ("f16", "u32", "s64", "bf16", "s32", "u64"), "inc": ("u32",), "dec": ("u32",),
                "and": ("b32", "b64"), "or": ("b64", "b32"), "xor": ("b32", "b64")}
OPS = ("and", "or", "xor", "add", "inc", "dec", "min", "max")


def _values(rng, ty, n):
    if ty in ("f32", "f64", "f16", "bf16"):
        v = rng.standard_normal(n) * 4.0
        v[:3] = [0.0, -0.0, np.nan]
        return v.astype(NP[ty])
    info = np.iinfo(NP[ty])
    v = rng.integers(info.min, info.max, n, dtype=NP[ty], endpoint=True)
    if ty == "u32":  # inc / dec: limits near the old values, zeros and equals included
        v[: n // 2] = rng.integers(0, 8, n // 2)
    return v


def _ref(op, ty, old, src):
    """old op src, element by element, with numpy."""
    if op in ("and", "or", "xor"):
        return {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op](old, src)
    if op == "inc":
        return np.where(old >= src, 0, old + 1).astype(old.dtype)
    if op == "dec":
        return np.where((old == 0) | (old > src), src, old - 1).astype(old.dtype)
    if op == "add":
        with np.errstate(over="ignore", invalid="ignore"):
            return (old + src).astype(old.dtype)
    out = old.copy()
    for i, (a, b) in enumerate(zip(old, src)):
        fa, fb = float(a), float(b)
        if fa != fa:
            out[i] = b
        elif fb != fb:
            out[i] = a
        else:
            ka, kb = (fa, np.copysign(1.0, fa)), (fb, np.copysign(1.0, fb))
            out[i] = a if (ka <= kb if op == "min" else ka >= kb) else b
    return out


def _same(got, want, ty):
    if ty in ("f32", "f64", "f16", "bf16"):
        g, w = got.astype(np.float64), want.astype(np.float64)
        nan = np.isnan(w)
        return bool((np.isnan(g) == nan).all()) and \
            (got.view(f"u{got.dtype.itemsize}")[~nan] == want.view(f"u{want.dtype.itemsize}")[~nan]).all()
    return bool((got == want).all())


HEAD = """.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 psrc, .param .u64 pdst, .param .u64 pout)
{
  .reg .pred %p<8>; .reg .b32 %r<64>; .reg .b64 %rd<32>;
  .shared .align 1024 .b8 sbuf[4096];
  .shared .align 1024 .b8 dbuf[4096];
  .shared .align 8 .b64 mbar;
  ld.param.u64 %rd1, [psrc]; ld.param.u64 %rd2, [pdst]; ld.param.u64 %rd3, [pout];
  mov.u64 %rd4, tmap; cvta.param.u64 %rd4, %rd4;
  mov.u64 %rd5, sbuf; mov.u64 %rd6, dbuf; mov.u64 %rd7, mbar;
"""


def _copy(dst, src, n, ld, st, tag):
    return [f"  mov.u64 %rd10, 0;", f"C{tag}:", f"  add.u64 %rd11, {src}, %rd10; add.u64 %rd12, {dst}, %rd10;",
            f"  {ld} %r1, [%rd11]; {st} [%rd12], %r1;",
            f"  add.u64 %rd10, %rd10, 4; setp.lt.u64 %p1, %rd10, {n}; @%p1 bra C{tag};"]


def _kernel(opcode, kind, coords=()):
    b = []
    b += _copy("%rd5", "%rd1", 4096 if kind == "tensor" else N, "ld.global.u32", "st.shared.u32", 0)
    if kind == "cluster":
        b += _copy("%rd6", "%rd2", N, "ld.global.u32", "st.shared.u32", 1)
        b += ["  mbarrier.init.shared::cta.b64 [%rd7], 1;", "  fence.proxy.async.shared::cta;",
              f"  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%rd7], {N};",
              f"  {opcode} [%rd6], [%rd5], {N}, [%rd7];",
              "W:", "  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%rd7], 0;", "  @!%p2 bra W;"]
        b += _copy("%rd3", "%rd6", N, "ld.shared.u32", "st.global.u32", 2)
    else:
        b.append("  fence.proxy.async.shared::cta;")
        if kind == "global":
            b.append(f"  {opcode} [%rd2], [%rd5], {N};")
        else:
            b.append(f"  {opcode} [%rd4, {{{', '.join(str(c) for c in coords)}}}], [%rd5];")
        b += ["  cp.async.bulk.commit_group;", "  cp.async.bulk.wait_group 0;"]
    return HEAD + "\n".join(b) + "\n  ret;\n}\n"


def _op_ty(form):
    p = form.split(".")
    return next(q for q in p if q in OPS), p[-1]


def test_bulk_reduce_rows(assemble):
    """Each non-tensor row reduces 64 bytes of shared memory into its destination."""
    rows = isa_rows(T + "test_bulk_reduce_rows")
    assert rows
    rng = np.random.default_rng(31)
    dummy = TensorMap("uint32", np.zeros((16,), np.uint32), (16,), (), (16,))
    bad = []
    for r in rows:
        op, ty = _op_ty(r["form"])
        kind = "cluster" if ".shared::cluster." in r["form"] else "global"
        n = N // np.dtype(NP[ty]).itemsize
        src, old = _values(rng, ty, n), _values(rng, ty, n)
        dst, out = old.copy(), np.zeros(n, NP[ty])
        ptx = _kernel(r["text"].split(" ")[0], kind)
        assemble(ptx)
        run_ptx(ptx, "k", [dummy, src, dst, out], block=(1, 1, 1),
                workers=1)
        got = out if kind == "cluster" else dst
        want = _ref(op, ty, old, src)
        if not _same(got, want, ty):
            bad.append(f"{r['form']}: {got} != {want}")
    assert not bad, "; ".join(bad[:4])


@pytest.mark.tiered
def test_bulk_reduce_tensor_rows(assemble):
    """Each tensor row reduces a box (its dimension 0 at an offset, every other dimension whole)
    into a tensor, with types of the tensor map the operation reduces; the fast tier runs every
    fourth row, `make test-slow` all of them."""
    rows = isa_rows(T + "test_bulk_reduce_tensor_rows")
    assert rows
    rng = np.random.default_rng(32)
    bad = []
    for i, r in enumerate(rows):
        if tiers.FAST and i % 4:
            continue
        op, _ = _op_ty(r["form"])
        ty = TENSOR_TYPES[op][i % len(TENSOR_TYPES[op])]
        dims = int(r["form"].split(".")[5][0])
        es = np.dtype(NP[ty]).itemsize
        w = 64 // es  # two 32-byte halves in dimension 0
        gdim = (w,) + (2, 3, 2, 2)[:dims - 1]
        box = (w // 2,) + gdim[1:]
        g = _values(rng, ty, int(np.prod(gdim)))
        old = g.copy()
        strides = tuple(int(es * np.prod(gdim[:k + 1])) for k in range(dims - 1))
        tm = TensorMap(MAP[ty], g, gdim, strides, box)
        src = np.zeros(4096 // es, NP[ty])
        nb = int(np.prod(box))
        src[:nb] = _values(rng, ty, nb)
        coords = (w // 2,) + (0,) * (dims - 1)
        ptx = _kernel(r["text"].split(" ")[0], "tensor", coords)
        assemble(ptx)
        run_ptx(ptx, "k",
                [tm, src, np.zeros(1, np.uint64), np.zeros(1, np.uint64)], block=(1, 1, 1),
                workers=1)
        want = old.reshape(gdim[::-1]).copy()
        sl = (Ellipsis, slice(w // 2, w))
        want[sl] = _ref(op, ty, want[sl].reshape(-1), src[:nb]).reshape(want[sl].shape)
        if not _same(g, want.reshape(-1), ty):
            bad.append(f"{r['form']} {ty}: {g.reshape(gdim[::-1])} != {want}")
    assert not bad, f"{len(bad)} of {len(rows)}: " + "; ".join(bad[:3])
