"""Tensor maps in device memory: tensormap.replace, tensormap.cp_fenceproxy and the maps TMA finds
at a global or shared address (grouped GEMMs' per-group maps, Triton's device-side descriptors)::

    tensormap.replace.tile.{global_address,rank}{.global,.shared::cta}.b1024.{b64,b32} [a], v;
        (every field: without .global / .shared::cta, a generic address)
    tensormap.replace.tile.{box_dim,global_dim,global_stride,element_stride}{.ss}.b1024.type
        [a], ord, v;
    tensormap.replace.tile.{elemtype,interleave_layout,swizzle_mode,swizzle_atomicity,
        fill_mode}{.ss}.b1024.b32 [a], v;
    tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.{cta,cluster,gpu,sys}
        .sync.aligned [dst], [src], 128;

The maps' bytes are tile-sim's layout (sim/tensor_map_bytes.py).  The values tensormap.replace
takes are the ISA's: ``rank`` is the rank minus one, strides are in bytes (``ord`` k: the stride of
dimension k + 1, as cuTensorMapEncodeTiled's globalStrides), other ``ord``s count dimensions from
the innermost, and the enumerations are the ISA's tables (tensor_map_bytes.ELEMTYPES, ...).

Ordering (fence.proxy.tensormap) is not checked: every edit is visible to the next TMA at once.
"""

from __future__ import annotations

from ..errors import EmulationError
from ..tensor_map_bytes import FIELD1, FIELD2, FIELD3, TENSOR_MAP_BYTES, decode, replace
from . import memory as memh


def map_in_memory(M, t, addr: int, what: str):
    """(map, its globalAddress) of the 128 bytes at generic address ``addr`` (global, shared or
    param)."""
    if addr % 64:
        raise EmulationError(f"{what}: tensor map address 0x{addr:x} is not 64-byte aligned")
    raw = memh.make_reader(M, "generic")(t, addr, TENSOR_MAP_BYTES)
    return decode(raw.to_bytes(TENSOR_MAP_BYTES, "little"),
                  f"{what}: generic address 0x{addr:x} is not a tensor-map parameter, and the "
                  f"128 bytes there")


# ------------------------------------------------------------------------------- decoders
def decode_replace(d, inst):
    p = inst.parts
    if len(p) < 4 or p[1] != "replace" or p[2] != "tile":
        raise d.error("tensormap.replace takes .tile (the only mode)")
    field = p[3]
    # no state space: a generic address of global or shared::cta memory
    space = "shared" if "shared::cta" in p else ("global" if "global" in p else "generic")
    extra = [q for q in p[4:] if q not in ("global", "shared::cta", "b1024", "b32", "b64")]
    if "b1024" not in p or extra:
        raise d.error("tensormap.replace.tile.<field>{.global,.shared::cta}.b1024.<type>")
    if field in FIELD2:
        addr, ordo, val = d.operands(3)
        if ordo[0] != "imm":
            raise d.error("tensormap.replace: ord is an immediate")
        k = ordo[1]
        if not 0 <= k < (4 if field == "global_stride" else 5):  # strides: rank - 1 of them
            raise d.error(f"tensormap.replace.{field}: ord {k} out of range")
    elif field in FIELD1 or field in FIELD3:
        addr, val = d.operands(2)
        k = None
    else:
        raise d.error(f"tensormap.replace: unknown field .{field}")
    want = "b64" if field in ("global_address", "global_stride") else "b32"
    if want not in p:
        raise d.error(f"tensormap.replace.{field} takes .{want}")
    ae = d.compile([f"return {d.addr_expr(addr)[0]}"])
    ve = d.compile([f"return {d.src(val, 64 if want == 'b64' else 32)}"])
    rd, wr = memh.make_reader(d.M, space), memh.make_writer(d.M, space)

    def f(t):
        a = ae(t)
        if a % 64:
            raise EmulationError(f"tensormap.replace: tensor map address 0x{a:x} is not 64-byte "
                                 f"aligned")
        raw = bytearray(rd(t, a, TENSOR_MAP_BYTES).to_bytes(TENSOR_MAP_BYTES, "little"))
        replace(raw, field, k or 0, ve(t))
        wr(t, a, TENSOR_MAP_BYTES, int.from_bytes(bytes(raw), "little"))
    return f


def decode_cp_fenceproxy(d, inst):
    p = inst.parts
    if "global" not in p or "shared::cta" not in p or "sync" not in p or "aligned" not in p:
        raise d.error("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release"
                      ".<scope>.sync.aligned [dst], [src], 128")
    dst, src, size = d.operands(3)
    if size[0] != "imm" or size[1] != TENSOR_MAP_BYTES:
        raise d.error("tensormap.cp_fenceproxy copies 128 bytes")
    de = d.compile([f"return {d.addr_expr(dst)[0]}"])
    se = d.compile([f"return {d.addr_expr(src)[0]}"])
    rd, wr = memh.make_reader(d.M, "shared"), memh.make_writer(d.M, "global")

    def f(w, parts):  # .sync.aligned: the warp's threads copy it once, together
        t = parts[0]
        dsts, srcs = {de(u) for u in parts}, {se(u) for u in parts}
        if len(dsts) != 1 or len(srcs) != 1:
            raise EmulationError("tensormap.cp_fenceproxy: the warp's threads give different "
                                 "addresses")
        a, s = dsts.pop(), srcs.pop()
        if a % 64 or s % 64:
            raise EmulationError("tensormap.cp_fenceproxy: tensor map addresses must be 64-byte "
                                 "aligned")
        wr(t, a, TENSOR_MAP_BYTES, rd(t, s, TENSOR_MAP_BYTES))
    return f, None
