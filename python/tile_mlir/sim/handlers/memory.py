"""ld / st / ldu / mapa / isspacep / getctarank / prefetch and friends (atom / red: atomics.py).

Shared-memory loads and stores go through state.shared_read / shared_write: stores are tagged per
byte with the writer thread and its ``fence.proxy.async`` count, so that a later ``tcgen05.cp``
(async proxy) can tell whether the writer fenced (docs/tcgen05.md §10); stores into live mbarrier
objects are rejected; and the families that race-check shared memory (cp.async, tcgen05.cp) observe both.
"""

from __future__ import annotations

from .. import memory as mem
from ..codegen import mask
from ..errors import EmulationError
from ..memory import OFFSET_MASK, own_offset
from ..ptx_parser import TYPE_BITS
from ..state import shared_read, shared_write
from ..undefined import undefined

SPACES = {"global", "shared", "shared::cta", "shared::cluster", "local", "param", "param::entry",
          "param::func", "const"}


def _space(inst):
    for q in inst.parts[1:]:
        if q in SPACES:
            if q in ("shared", "shared::cta"):
                return "shared"
            if q.startswith("param"):
                return "param"
            if q == "shared::cluster":
                return "cluster"
            return q
    return "generic"


def _vec(inst):
    for q in inst.parts[1:]:
        if q in ("v2", "v4", "v8"):
            return int(q[1])
    return 1


# ------------------------------------------------------------------------------- raw access
def make_reader(M, space):
    gread = M.gmem.read
    if space in ("global", "const"):
        return lambda t, a, n: gread(a, n)
    if space == "shared":
        def rd(t, a, n):
            return shared_read(M, t, t.cta, a if a <= OFFSET_MASK else own_offset(t.cta, a), n)
        return rd
    if space == "cluster":
        def rd(t, a, n):
            c, off = M.shared_target(t, a, "cluster")
            return shared_read(M, t, c, off, n)
        return rd
    if space == "param":
        pb = M.param_buf

        def rd(t, a, n):
            if a < 0 or a + n > len(pb):
                raise EmulationError(f"out-of-bounds .param access of {n} bytes at offset {a} "
                                     f"(parameter space is {len(pb)} bytes)")
            return int.from_bytes(pb[a:a + n], "little")
        return rd
    if space == "local":
        def rd(t, a, n):
            return _local(t, a, n, True)
        return rd

    param = make_reader(M, "param")

    def rd(t, a, n):  # generic
        k = M.classify_generic(a)
        if k == "global":
            return gread(a, n)
        if k == "local":
            return _local(t, a - mem.LOCAL_WINDOW, n, True)
        if k == "param":
            return param(t, a - mem.PARAM_WINDOW, n)
        c, off = M.shared_target(t, a, "generic")
        return shared_read(M, t, c, off, n)
    return rd


def make_writer(M, space):
    gwrite = M.gmem.write

    def gw(t, a, n, v):
        gwrite(a, n, v)
        M.progress += 1
    if space in ("global", "const"):
        return gw
    if space == "shared":
        return lambda t, a, n, v: shared_write(
            M, t, t.cta, a if a <= OFFSET_MASK else own_offset(t.cta, a), n, v)
    if space == "cluster":
        def wr(t, a, n, v):
            c, off = M.shared_target(t, a, "cluster")
            shared_write(M, t, c, off, n, v)
        return wr
    if space == "param":
        def wr(t, a, n, v):
            raise EmulationError("store to kernel .param space")
        return wr
    if space == "local":
        return lambda t, a, n, v: _local(t, a, n, False, v)

    def wr(t, a, n, v):
        k = M.classify_generic(a)
        if k == "global":
            return gw(t, a, n, v)
        if k == "local":
            return _local(t, a - mem.LOCAL_WINDOW, n, False, v)
        if k == "param":
            raise EmulationError("store to kernel .param space (a generic address from "
                                 "cvta.param)")
        c, off = M.shared_target(t, a, "generic")
        shared_write(M, t, c, off, n, v)
    return wr


def _local(t, a, n, read, v=0):
    buf = t.local
    if buf is None or a < 0 or a + n > len(buf):
        raise EmulationError(f"out-of-bounds .local access of {n} bytes at offset {a} (local "
                             f"frame is {0 if buf is None else len(buf)} bytes)")
    if read:
        return int.from_bytes(buf[a:a + n], "little")
    buf[a:a + n] = (v & ((1 << (8 * n)) - 1)).to_bytes(n, "little")


# ------------------------------------------------------------------------------- ld / st
def _ld_type(d, inst):
    t = inst.parts[-1]
    if t not in TYPE_BITS or t == "pred":
        raise d.error(f"bad ld/st type .{t}")
    return t, TYPE_BITS[t]


def decode_ld(d, inst):
    space = _space(inst)
    nv = _vec(inst)
    t, w = _ld_type(d, inst)
    ops = d.operands(2, 3)  # d, [a]{, cache-policy}
    dst, addr = ops[0], ops[1]
    ae, symspace = d.addr_expr(addr)
    if symspace == "param" and space == "generic":
        space = "param"
    if symspace == "local" and space == "param":  # a device function's parameter: its frame
        space = "local"
    eb = w // 8
    n = eb * nv
    dsts = dst[1] if dst[0] == "vec" else [dst]
    if len(dsts) != nv:
        raise d.error(f".v{nv} needs {nv} destination registers, got {len(dsts)}")
    signed = t.startswith("s")
    lines = [f"_a = {ae}"]
    if n > 1:
        lines += [f"if _a % {n}:",
                  f"    raise EmulationError('misaligned {n}-byte ld at address 0x%x' % _a)"]
    lines.append(f"_v = RD(t, _a, {n})")
    for i, o in enumerate(dsts):
        if o[0] == "sink":
            continue
        lines.append(d.dst(o, w, signed)(f"(_v >> {i * w}) & {mask(w):#x}" if nv > 1 else "_v"))
    return d.compile(lines, {"RD": make_reader(d.M, space)})


def decode_st(d, inst):
    space = _space(inst)
    if space == "const":  # the constant bank is read-only: ptxas refuses st.const
        raise d.error("st.const: the constant state space is read-only (ptxas refuses the store)")
    nv = _vec(inst)
    t, w = _ld_type(d, inst)
    ops = d.operands(2, 3)  # [a], b{, cache-policy}
    addr, src = ops[0], ops[1]
    ae, symspace = d.addr_expr(addr)
    if symspace == "local" and space == "param":  # a call's argument or a return value: a frame
        space = "local"
    eb = w // 8
    n = eb * nv
    srcs = src[1] if src[0] == "vec" else [src]
    if len(srcs) != nv:
        raise d.error(f".v{nv} needs {nv} source operands, got {len(srcs)}")
    parts = [f"({d.src(o, w, ftype=t.startswith('f'))} << {i * w})" if i else
             d.src(o, w, ftype=t.startswith('f')) for i, o in enumerate(srcs)]
    lines = [f"_a = {ae}"]
    if n > 1:
        lines += [f"if _a % {n}:",
                  f"    raise EmulationError('misaligned {n}-byte st at address 0x%x' % _a)"]
    lines.append(f"WR(t, _a, {n}, {' | '.join(parts)})")
    return d.compile(lines, {"WR": make_writer(d.M, space)})


decode_ldu = decode_ld


# ------------------------------------------------------------------------------- cluster addressing
def decode_mapa(d, inst):
    """mapa: the address of the same shared variable in CTA ``b`` of the cluster.  A rank the
    cluster does not have gives an undefined address (the ISA defines the result only for CTAs of
    the cluster; CUTLASS's CLC scheduler maps in every lane and uses the lanes below the cluster
    size): only its use is reported (sim/undefined.py, docs/emulator.md §12.7 W10)."""
    p = inst.parts
    t = p[-1]
    if t not in ("u32", "u64"):
        raise d.error("mapa needs a type, .u32 or .u64")
    w = TYPE_BITS[t]
    dd, a, b = d.operands(3)
    generic = "shared::cluster" not in p
    if generic and w == 32:
        raise d.error(GENERIC32)
    if generic:
        lines = [f"_a = {d.src(a, 64)}",
                 f"if not ({mem.SHARED_WINDOW} <= _a < "
                 f"{mem.SHARED_WINDOW + mem.SHARED_WINDOW_SIZE}):",
                 "    raise EmulationError('mapa: generic address 0x%x is not a shared "
                 "address' % _a)",
                 "_c, _o = M.shared_target(t, _a, 'generic')",
                 f"_v = {mem.SHARED_WINDOW} + (_k << {mem.CLUSTER_SHIFT}) + _o"]
    else:
        lines = [f"_c, _o = M.shared_target(t, {d.src(a, 64)}, 'cluster')",
                 f"_v = (_k << {mem.CLUSTER_SHIFT}) + _o"]
    lines = [f"_k = {d.src(b, 32)}"] + lines + ["if _k >= len(t.cta.cluster.ctas):"]
    if dd[0] == "sink":
        lines.append("    pass")
    else:
        lines.append(f"    r[{d.slot(dd)}] = _U(_v & {mask(min(dd[1].bits, w)):#x})")
    lines += ["else:", "    " + d.dst(dd, w)("_v")]
    what = "the address mapa gives for a CTA rank outside the cluster"
    return d.compile(lines, {"_U": undefined(d.M, "undefined-value", inst.line, what)})


#: why mapa.u32 / getctarank.u32 of a generic address are refused
GENERIC32 = ("a 32-bit generic address exists only under .address_size 32, which ptxas 13 refuses "
             "for every target here; tile-sim's generic shared window lies above 2^32 (use the "
             ".u64 form, or .shared::cluster with a 32-bit shared address)")


def decode_getctarank(d, inst):
    p = inst.parts
    dd, a = d.operands(2)
    space = "cluster" if "shared::cluster" in p else "generic"
    if space == "generic" and p[-1] == "u32":
        raise d.error(GENERIC32)
    return d.compile([f"_c, _o = M.shared_target(t, {d.src(a, 64)}, '{space}')",
                      d.dst(dd, 32)("_c.rank")])


def decode_isspacep(d, inst):
    """isspacep.space p, a: 1 if the generic address ``a`` falls in the space's window (PTX ISA,
    isspacep).  ``.shared`` is ``.shared::cta``, the executing CTA's own window (its cluster rank's
    slice of the shared window, memory.py); ``.shared::cluster`` is the whole shared window;
    ``.param`` is ``.param::entry``, the kernel parameters, whose window lies inside ``.global``'s
    (the ISA says so: isspacep.global is 1 for them too); ``.const`` is an address inside one of the
    module's ``.const`` variables, which tile-sim keeps in global memory (so ``.global`` is 1 for
    them as well: W18)."""
    p = inst.parts
    sp = ".".join(p[1:])
    if sp not in ISSPACEP_SPACES:
        raise d.error(f"isspacep needs one state space, .{', .'.join(ISSPACEP_SPACES)}")
    dd, a = d.operands(2)
    return d.compile([d.dst(dd, 1)(f"1 if _in(M, t, {d.src(a, 64)}, {sp!r}) else 0")],
                     {"_in": in_space})


ISSPACEP_SPACES = ("const", "global", "local", "shared", "shared::cta", "shared::cluster", "param",
                   "param::entry")


def in_space(M, t, a: int, space: str) -> bool:
    kind = M.classify_generic(a)
    if space in ("shared", "shared::cta"):
        return kind == "generic_shared" and (a - mem.SHARED_WINDOW) >> mem.CLUSTER_SHIFT == t.cta.rank
    if space == "shared::cluster":
        return kind == "generic_shared"
    if space in ("param", "param::entry"):
        return kind == "param"
    if space == "global":
        return kind in ("global", "param")
    if space == "local":
        return kind == "local"
    if space == "const":
        return kind == "global" and M.gmem.name_at(a).startswith(".const ")
    return False


def decode_nop(d, inst):
    """prefetch / prefetchu / applypriority / discard / nanosleep / pmevent: no architectural
    effect in the emulator."""
    return d.compile([])


def decode_createpolicy(d, inst):
    dd = d.operands(1, 4)[0]
    return d.compile([d.dst(dd, 64)("0")])
