"""st.async and red.async: stores and reductions into a cluster peer's shared memory that complete
on an mbarrier of the destination CTA (PTX ISA "st.async", "red.async")::

    st.async{.weak}{.shared::cluster}{.cluster}.mbarrier::complete_tx::bytes{.v2,.v4}.type
        [a], b, [mbar];              .type = .b32 .b64 .u32 .s32 .f32 .f64 (.v4: 32-bit only)
    red.async{.relaxed}{.cluster}{.shared::cluster}.mbarrier::complete_tx::bytes.op.type
        [a], b, [mbar];              .op.type = .inc/.dec.u32, .min/.max.{u32,s32},
                                     .and/.or/.xor.b32, .add.{u32,s32,u64}

and the sm_100 forms into global memory, released at a scope, completing without an mbarrier::

    st.async.release.{gpu,sys}{.global}.type [a], b;  st.async.mmio.release.sys{.global}.type [a], b
        .type = .b16 .b32 .b64 .u16 .u32 .u64 .s16 .s32 .s64 .f32 .f64
    red.async.release.gpu{.global}.add.type [a], b;   .type = .u32 .s32 .u64 .s64

Model: performed at issue, then complete-tx of the bytes written on the mbarrier, which must be in
the same CTA as ``a`` (the ISA's rule); a reader sees the bytes once it has waited for that phase.
Under a schedule policy (sim/explore/) the write and its complete-tx are one completion held in
flight, so that two st.async of one thread may land in either order and late.  The global forms are performed at
issue (one legal schedule of an asynchronous release; tile-sim's memory is sequentially
consistent); ``.mmio`` addresses ordinary global memory, tile-sim having no memory-mapped devices
(docs/emulator.md §12.9, W16).
"""

from __future__ import annotations

from ..errors import EmulationError
from ..state import shared_read, shared_write
from . import mbarrier as mbar
from .atomics import TYPES, _element_op

_ST_TYPES = ("b32", "b64", "u32", "s32", "f32", "f64", "u64", "s64")
_RED = {"inc": ("u32",), "dec": ("u32",), "min": ("u32", "s32"), "max": ("u32", "s32"),
        "and": ("b32",), "or": ("b32",), "xor": ("b32",), "add": ("u32", "s32", "u64")}
_COMMON = {"async", "weak", "relaxed", "shared::cluster", "cluster", "mbarrier::complete_tx::bytes"}


def _form(d, inst, red):
    p = inst.parts
    ty = p[-1]
    op = next((q for q in p if q in _RED), None) if red else None
    nvec = next((int(q[1]) for q in p if q in ("v2", "v4")), 1)
    extra = [q for q in p[1:-1] if q not in _COMMON and q != op and q not in ("v2", "v4")]
    if extra or ("weak" in p and red) or ("relaxed" in p and not red):
        raise d.error(f"{p[0]}.async: qualifier(s) {['.' + q for q in extra] or p} not in the ISA's "
                      f"form")
    if red:
        if op is None or ty not in _RED[op] or nvec > 1:
            raise d.error("red.async takes .inc/.dec.u32, .min/.max.{u32,s32}, "
                          ".and/.or/.xor.b32 or .add.{u32,s32,u64}")
    elif ty not in _ST_TYPES or (nvec == 4 and TYPES[ty][0] == 64):
        raise d.error(f"st.async: no form .v{nvec}.{ty}" if nvec > 1 else f"st.async: no type .{ty}")
    return ty, op, nvec


def _target(M, t, a, mb_addr, n, what):
    cta, off = M.shared_target(t, a, "cluster")
    if off % n:
        raise EmulationError(f"{what}: address 0x{a:x} is not {n}-byte aligned")
    mcta, moff = M.shared_target(t, mb_addr, "cluster")
    if mcta is not cta:
        raise EmulationError(f"{what}: the mbarrier (CTA rank {mcta.rank}) must be in the CTA of "
                             f"the destination (rank {cta.rank})")
    b = cta.smem.mbarriers.get(moff)
    if b is None:
        raise EmulationError(f"{what}: no mbarrier initialised at shared 0x{moff:x} of CTA "
                             f"{cta.idx}")
    return cta, off, b


def decode_st_async(d, inst):
    if "mbarrier::complete_tx::bytes" not in inst.parts:
        return _decode_global(d, inst, False)
    ty, _, nvec = _form(d, inst, False)
    a, b, mb = d.operands(3)
    bits = TYPES[ty][0]
    srcs = b[1] if b[0] == "vec" else [b]
    if len(srcs) != nvec:
        raise d.error(f"st.async: .v{nvec} takes {nvec} sources")
    fimm = ty.startswith("f")
    get = d.compile([f"return ({', '.join(d.src(o, bits, ftype=fimm) for o in srcs)},)"])
    ae = d.compile([f"return {d.addr_expr(a)[0]}"])
    me = d.compile([f"return {d.addr_expr(mb)[0]}"])
    M, n, line = d.M, bits // 8 * nvec, inst.line

    def f(t):
        cta, off, barrier = _target(M, t, ae(t), me(t), n, "st.async")
        v = 0
        for i, x in enumerate(get(t)):
            v |= (x & ((1 << bits) - 1)) << (bits * i)

        def land():  # at once, or in flight under a schedule policy
            shared_write(M, t, cta, off, n, v)
            mbar.complete_tx(M, barrier, n)
        M.complete_async(land, "st.async", line, t)
    return f


def decode_red_async(d, inst):
    if "mbarrier::complete_tx::bytes" not in inst.parts:
        return _decode_global(d, inst, True)
    ty, op, _ = _form(d, inst, True)
    a, b, mb = d.operands(3)
    bits, kind = TYPES[ty]
    fn = _element_op(op, ty, bits, kind)
    get = d.compile([f"return {d.src(b, bits)}"])
    ae = d.compile([f"return {d.addr_expr(a)[0]}"])
    me = d.compile([f"return {d.addr_expr(mb)[0]}"])
    M, n, m, line = d.M, bits // 8, (1 << bits) - 1, inst.line

    def f(t):
        cta, off, barrier = _target(M, t, ae(t), me(t), n, "red.async")
        b = get(t) & m

        def land():  # the read-modify-write when it lands (in flight under a schedule policy)
            old = shared_read(M, t, cta, off, n)
            shared_write(M, t, cta, off, n, fn(old, b, None) & m)
            mbar.complete_tx(M, barrier, n)
        M.complete_async(land, "red.async", line, t)
    return f


_GLOBAL_ST = ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64")
_GLOBAL_RED = ("u32", "s32", "u64", "s64")


def _decode_global(d, inst, red):
    """st.async / red.async into global memory (sm_100): a release at .gpu / .sys scope."""
    p = inst.parts
    ty = p[-1]
    known = {"async", "release", "gpu", "sys", "global", "mmio"} | ({"add"} if red else set())
    extra = [q for q in p[1:-1] if q not in known]
    ok = not extra and "release" in p and ("gpu" in p) != ("sys" in p)
    if red:
        ok = ok and "add" in p and "mmio" not in p and "gpu" in p and ty in _GLOBAL_RED
    else:
        ok = ok and ty in _GLOBAL_ST and ("mmio" not in p or "sys" in p)
    if not ok:
        raise d.error(f"{p[0]}.async without an mbarrier: the ISA's forms are "
                      + ("red.async.release.gpu{.global}.add.{u32,s32,u64,s64}" if red else
                         "st.async{.mmio}.release.{gpu,sys}{.global}.type (.mmio: .sys)"))
    a, b = d.operands(2)
    bits = TYPES.get(ty, (int(ty[1:]), ty[0]))[0]
    get = d.compile([f"return {d.src(b, bits, ftype=ty.startswith('f'))}"])
    ae = d.compile([f"return {d.addr_expr(a)[0]}"])
    M, n, m = d.M, bits // 8, (1 << bits) - 1
    fn = _element_op("add", ty, bits, TYPES[ty][1]) if red else None
    what = f"{p[0]}.async"

    def f(t):
        addr = ae(t)
        if addr % n:
            raise EmulationError(f"{what}: address 0x{addr:x} is not {n}-byte aligned")
        if M.classify_generic(addr) != "global":
            raise EmulationError(f"{what}: address 0x{addr:x} is not in global memory")
        v = get(t) & m
        if fn is not None:
            v = fn(M.gmem.read(addr, n), v, None) & m
        M.gmem.write(addr, n, v)
        M.progress += 1
    return f
