"""The cp.async.bulk instructions that move no data: bulk async-group commit and wait (a wait
performs the covered stores' writes), and the bulk, tensor and tensormap prefetches (checks only)."""

from __future__ import annotations

from .. import memory as mem
from ..errors import EmulationError
from . import tma
from .tma import TILE_DIMS, check_bulk, check_qualifiers, retire, tensor_map_at, tmap_operand


# ------------------------------------------------------------------------------- bulk groups
def decode_commit_group(d, inst):
    d.operands(0)
    return d.compile(["_commit(t)"], {"_commit": commit_group})


def commit_group(t):
    st = tma.GROUPS.of(t)
    st.groups.append(st.cur)  # an empty group is legal and completes at once
    st.cur = []


def decode_wait_group(d, inst):
    ops = d.operands(1)
    extra = [q for q in inst.parts[4:] if q != "read"]
    if extra:
        raise d.error(f"unknown cp.async.bulk.wait_group qualifier(s) {extra}")
    if ops[0][0] != "imm" or not 0 <= ops[0][1] <= 63:
        raise d.error("cp.async.bulk.wait_group needs an integer constant N in 0..63")
    return d.compile([f"_wait(M, t, {ops[0][1]})"], {"_wait": wait_group})


def wait_group(M, t, n):
    """wait_group{.read} N: all but the N most recent groups complete.  Their sources are read
    and their writes made (performing the writes at .read too is one legal schedule)."""
    st = tma.GROUPS.of(t)
    k = len(st.groups) - n
    if k <= 0:
        return
    done = [rec for g in st.groups[:k] for rec in g]
    st.groups = st.groups[k:]
    retire(M, done)


# ------------------------------------------------------------------------------- prefetches
def decode_prefetch_tensor(d, inst):
    p = inst.parts  # cp async bulk prefetch tensor Nd L2 global ...
    dims = TILE_DIMS.get(p[5] if len(p) > 5 else "")
    if dims is None or p[6:8] != ["L2", "global"]:
        raise d.error("expected cp.async.bulk.prefetch.tensor.Nd.L2.global{.tile}")
    check_qualifiers(d, inst, {"cp", "async", "bulk", "prefetch", "tensor", p[5], "L2", "global",
                          "tile"})
    ops = d.operands(1, 2)
    te, coords = tmap_operand(d, ops[0])
    if len(coords) != dims:
        raise d.error(f".{dims}d takes {dims} coordinates, got {len(coords)}")
    return d.compile([f"_pf(M, {te}, {dims})"], {"_pf": prefetch_tensor})


def prefetch_tensor(M, taddr, dims):
    """A hint: no effect but the checks a real prefetch makes of its operands."""
    tm, _ = tensor_map_at(M, taddr, "cp.async.bulk.prefetch.tensor")
    if tm.rank != dims:
        raise EmulationError(f"cp.async.bulk.prefetch.tensor: .{dims}d for a tensor map of rank "
                             f"{tm.rank}")


def decode_prefetch_bulk(d, inst):
    if inst.parts[4:6] != ["L2", "global"]:
        raise d.error("expected cp.async.bulk.prefetch.L2.global [srcMem], size")
    check_qualifiers(d, inst, {"cp", "async", "bulk", "prefetch", "L2", "global"})
    ops = d.operands(2, 3)
    se, _ = d.addr_expr(ops[0])
    return d.compile([f"_chk(M, {se}, {d.src(ops[1], 32)})"], {"_chk": _prefetch_bulk})


def _prefetch_bulk(M, src, size):
    check_bulk("cp.async.bulk.prefetch", 0, src, size)
    M.gmem.find(src, size)


def decode_prefetch_tensormap(d, inst):
    """prefetch{.const,.param}.tensormap [a]: the address must name a tensor map -- a map bound
    to a kernel parameter, or the 128 bytes at a global, shared or ``.const`` address (a map a
    kernel copied and edited, one in a ``.const`` variable).  ``.param`` takes a kernel-parameter
    address, ``.const`` a ``.const`` one (tile-sim keeps ``.const`` variables in global memory,
    where its addresses are generic ones), no space a generic address (PTX ISA, prefetch)."""
    ops = d.operands(1)
    op = ops[0]
    if op[0] != "addr":
        raise d.error("prefetch.tensormap needs `[a]`")
    space = "param" if "param" in inst.parts else "const" if "const" in inst.parts else None
    base = op[1]
    if base[0] == "sym":
        sp, val = d.sym(base[1])
        if sp not in ((space,) if space else ("param", "const", "global")):
            what = space or "kernel parameter, .const or .global"
            raise d.error(f"`{base[1].name}` is not a {what} variable")
        ae = str((mem.PARAM_WINDOW if sp == "param" else 0) + val + op[2])
    else:
        ae, _ = d.addr_expr(op)
        if space == "param":  # a .param-space address, not a generic one
            ae = f"({ae} + {mem.PARAM_WINDOW})"
    return d.compile([f"_tm(M, {ae}, 'prefetch.tensormap', t)"], {"_tm": tensor_map_at})