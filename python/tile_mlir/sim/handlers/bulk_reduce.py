"""cp.reduce.async.bulk and cp.reduce.async.bulk.tensor: the bulk copy engine's reductions (PTX ISA
"Data Movement and Conversion Instructions: cp.reduce.async.bulk{.tensor}")::

    cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.op.type
        [dstMem], [srcMem], size, [mbar]
    cp.reduce.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.op{.noftz}.type
        [dstMem], [srcMem], size{, policy}
    cp.reduce.async.bulk.tensor.Nd.global.shared::cta.op{.tile}.bulk_group{.L2::cache_hint}
        [tensorMap, {c0, ..}], [srcMem]{, policy}

Each element of the destination becomes ``dst op src`` (the ISA's table: and/or/xor of .b32/.b64,
add of .u32/.s32/.u64/.f32/.f64 and .noftz .f16/.bf16, inc/dec of .u32, min/max of .u32/.s32/
.u64/.s64/.f16/.bf16; a tensor copy takes its type from the tensor map).  They complete as the bulk
copies do (handlers/tma_copy.py, docs/emulator.md §9, A29): into a cluster peer's shared memory at
issue, then complete-tx of the size on the mbarrier; into global memory at the covering
``cp.async.bulk.wait_group``, reading the destination then (one legal schedule of an atomic
reduction).  The element arithmetic is atom's (handlers/atomics.py: wrap, signedness, inc/dec,
float add rounded to nearest even keeping subnormals, min/max with -0 below +0 and a NaN losing
to a number); assumptions W15 (§12.7, §12.9).
"""

from __future__ import annotations

import numpy as np

from ..errors import EmulationError
from ..memory import own_offset
from . import tma
from .atomics import TYPES, _element_op
from .tma import TILE_DIMS, check_bulk, check_qualifiers, new_record, register_hooks, space_of
from .tma_copy import _complete, _global_view, _read_smem, _write_smem, store_box, tensor_store_operands

OPS = ("and", "or", "xor", "add", "inc", "dec", "min", "max")
#: the ISA's table: operation -> the types it reduces
TABLE = {"and": ("b32", "b64"), "or": ("b32", "b64"), "xor": ("b32", "b64"),
         "add": ("u32", "s32", "u64", "f32", "f64", "f16", "bf16"), "inc": ("u32",),
         "dec": ("u32",), "min": ("u32", "s32", "u64", "s64", "f16", "bf16"),
         "max": ("u32", "s32", "u64", "s64", "f16", "bf16")}
#: the shared::cluster destination: integers only
CLUSTER_TYPES = ("b32", "u32", "s32", "b64", "u64")
#: tensor-map element type -> the reduction type it names (bits for and/or/xor)
MAP_TYPES = {"uint32": "u32", "int32": "s32", "uint64": "u64", "int64": "s64", "float16": "f16",
             "bfloat16": "bf16", "float32": "f32", "float32_ftz": "f32", "float64": "f64"}
_NP = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def _map_type(op, data_type, what):
    ty = MAP_TYPES.get(data_type)
    if ty is not None and op in ("and", "or", "xor"):
        ty = "b" + ty.lstrip("usfb")  # the bits of an integer element
        if data_type.startswith(("float", "bfloat")):
            ty = None
    if ty is None or ty not in TABLE[op]:
        raise EmulationError(f"{what}: .{op} does not reduce a tensor map of "
                             f"{data_type.upper()} (PTX ISA: .{op} of {', '.join(TABLE[op])})")
    return ty


def reduce_bytes(op, ty, dst: np.ndarray, src: np.ndarray) -> np.ndarray:
    """dst op src element by element over little-endian uint8 arrays of one length."""
    bits, kind = TYPES[ty]
    w = _NP[bits]
    a, b = dst.view(w), src.view(w)
    if kind in ("u", "b", "s") and op in ("add", "and", "or", "xor", "min", "max"):
        if op == "add":
            r = a + b
        elif op in ("and", "or", "xor"):
            r = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op](a, b)
        else:
            sa, sb = (a.view(np.int32 if bits == 32 else np.int64),
                      b.view(np.int32 if bits == 32 else np.int64)) if kind == "s" else (a, b)
            pick = (sa <= sb) if op == "min" else (sa >= sb)
            r = np.where(pick, a, b)
        return r.astype(w).view(np.uint8)
    fn = _element_op(op, ty, bits, "f" if kind == "f" else kind)
    m = (1 << bits) - 1
    out = np.fromiter((fn(int(x), int(y), None) & m for x, y in zip(a, b)), dtype=w, count=len(a))
    return out.view(np.uint8)


def _form(d, inst, ty_from_map=False):
    p = inst.parts
    op = next((q for q in p if q in OPS), None)
    if op is None:
        raise d.error(f"cp.reduce.async.bulk needs an operation .{'/.'.join(OPS)}")
    if ty_from_map:
        return op, None
    ty = p[-1]
    if ty not in TABLE[op]:
        raise d.error(f"cp.reduce.async.bulk: no .{op}.{ty} (PTX ISA: .{op} of "
                      f"{', '.join(TABLE[op])})")
    if (ty in ("f16", "bf16")) != ("noftz" in p):
        raise d.error("cp.reduce.async.bulk: .noftz goes with (and only with) .f16 / .bf16")
    return op, ty


def decode_reduce_bulk(d, inst):
    p = inst.parts  # cp reduce async bulk dst src ...
    dst, src = space_of(p, 4), space_of(p, 5)
    op, ty = _form(d, inst)
    check_qualifiers(d, inst, {"cp", "reduce", "async", "bulk", p[4], p[5], op, ty, "noftz",
                               "mbarrier::complete_tx::bytes", "bulk_group"})
    ops = inst.operands
    de, _ = d.addr_expr(ops[0])
    se, _ = d.addr_expr(ops[1])
    register_hooks(d)
    if (dst, src) == ("cluster", "shared"):
        if "mbarrier::complete_tx::bytes" not in p or ty not in CLUSTER_TYPES:
            raise d.error("cp.reduce.async.bulk into .shared::cluster completes with "
                          ".mbarrier::complete_tx::bytes and reduces .b32/.u32/.s32/.b64/.u64")
        if len(ops) != 4:
            raise d.error("expected `[dstMem], [srcMem], size, [mbar]`")
        me, _ = d.addr_expr(ops[3])
        return d.compile([f"_r(M, t, {de}, {se}, {d.src(ops[2], 32)}, {me}, {inst.line})"],
                         {"_r": lambda M, t, a, s, n, mb, line: to_cluster(M, t, a, s, n, mb, op,
                                                                           ty, line)})
    if (dst, src) == ("global", "shared"):
        if "bulk_group" not in p:
            raise d.error("cp.reduce.async.bulk into global memory completes with .bulk_group")
        want = 3 + ("L2::cache_hint" in p)
        if len(ops) != want:
            raise d.error(f"expected {want} operands `[dstMem], [srcMem], size"
                          f"{', policy' if want == 4 else ''}`")
        return d.compile([f"_r(M, t, {de}, {se}, {d.src(ops[2], 32)}, {inst.line})"],
                         {"_r": lambda M, t, a, s, n, line: to_global(M, t, a, s, n, op, ty, line)})
    raise d.error("cp.reduce.async.bulk reduces .shared::cluster.shared::cta or "
                  ".global.shared::cta")


def to_cluster(M, t, dst, src, size, mb_addr, op, ty, line):
    what = "cp.reduce.async.bulk"
    src = own_offset(t.cta, src)
    check_bulk(what, dst, src, size)
    cta, off = M.shared_target(t, dst, "cluster")
    mcta, moff = M.shared_target(t, mb_addr, "cluster")
    if mcta is not cta:
        raise EmulationError(f"{what}: the mbarrier (CTA rank {mcta.rank}) must be in the "
                             f"destination's CTA (rank {cta.rank})")
    rec = new_record(M, t, line, what)
    sidx = _read_smem(M, t, t.cta, np.arange(src, src + size), 1, rec, what)
    data = t.cta.smem.np[sidx].copy()
    tma.SHARED.of(t.cta).reading = [e for e in tma.SHARED.of(t.cta).reading if e[2] is not rec]
    cta.smem.check(off, size, f"{what} destination")
    new = reduce_bytes(op, ty, cta.smem.np[off:off + size].copy(), data)
    _write_smem(M, cta, np.arange(off, off + size), new[:, None], rec, what)
    _complete(M, rec, cta, mcta, moff, size, what)
    M.progress += 1


def _reducer(op, ty, src):
    return lambda old: reduce_bytes(op, ty, np.ascontiguousarray(old), src)


def to_global(M, t, dst, src, size, op, ty, line):
    what = "cp.reduce.async.bulk"
    src = own_offset(t.cta, src)
    check_bulk(what, dst, src, size)
    if M.classify_generic(dst) != "global":
        raise EmulationError(f"{what}: destination 0x{dst:x} is not a global address")
    buf, o = M.gmem.find(dst, size)
    rec = new_record(M, t, line, what)
    idx = _read_smem(M, t, t.cta, np.arange(src, src + size), 1, rec, what)
    rec.writes.append((np.frombuffer(buf, dtype=np.uint8), np.arange(o, o + size),
                       _reducer(op, ty, t.cta.smem.np[idx].copy())))
    tma.GROUPS.of(t).cur.append(rec)
    tma.hold_writes(M, t, rec, line)
    M.progress += 1


def decode_reduce_tensor(d, inst):
    p = inst.parts  # cp reduce async bulk tensor Nd global shared::cta op ...
    dims = TILE_DIMS.get(p[5] if len(p) > 5 else "")
    if dims is None:
        raise d.error("cp.reduce.async.bulk.tensor needs a dimension .1d .. .5d")
    if (space_of(p, 6), space_of(p, 7)) != ("global", "shared"):
        raise d.error("cp.reduce.async.bulk.tensor reduces .global.shared::cta")
    op, _ = _form(d, inst, ty_from_map=True)
    if any(q.startswith("im2col") for q in p):
        raise d.error("cp.reduce.async.bulk.tensor: the .im2col_no_offs load mode is not emulated "
                      "(tile-sim's tensor maps are tiled; §9)")
    check_qualifiers(d, inst, {"cp", "reduce", "async", "bulk", "tensor", p[5], "global",
                               "shared::cta", op, "tile", "bulk_group"})
    if "bulk_group" not in p:
        raise d.error("cp.reduce.async.bulk.tensor completes with .bulk_group")
    te, coords, se = tensor_store_operands(d, inst, dims)
    return d.compile([f"_r(M, t, {te}, [{', '.join(coords)}], {se}, {inst.line})"],
                     {"_r": lambda M, t, ta, c, s, line: tensor_reduce(M, t, ta, c, s, op, line)})


def tensor_reduce(M, t, taddr, coords, src, op, line):
    what = "cp.reduce.async.bulk.tensor"
    tm, gaddr, coords, src = store_box(M, t, taddr, coords, src, what + " store")
    ty = _map_type(op, tm.data_type, what)
    goff, inb, phys = tm.box(coords, src)  # out-of-bounds elements reduce nothing (W15)
    esize = tm.elem_size
    rec = new_record(M, t, line, what)
    idx = _read_smem(M, t, t.cta, phys, esize, rec, what)
    data = t.cta.smem.np[idx].reshape(-1, esize)
    if inb.any():
        view, base = _global_view(M, gaddr, goff[inb], esize, what)
        rec.writes.append((view, ((goff[inb] - base)[:, None] + np.arange(esize)).reshape(-1),
                           _reducer(op, ty, data[inb].reshape(-1).copy())))
    tma.GROUPS.of(t).cur.append(rec)
    tma.hold_writes(M, t, rec, line)
    M.progress += 1
