"""clusterlaunchcontrol (sm_100a): the CTA tile schedulers' cancelling of clusters not yet
launched (PTX ISA "clusterlaunchcontrol.try_cancel", "clusterlaunchcontrol.query_cancel")::

    clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes
        {.multicast::cluster::all}.b128 [addr], [mbar];   (no .shared::cta: generic addresses)
    clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, resp;
    clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {x, y, z, _}, resp;
    clusterlaunchcontrol.query_cancel.get_first_ctaid::{x,y,z}.b32.b128 r, resp;

try_cancel asks to cancel the launch of a cluster of the grid that has not started; its 16-byte
response goes to shared memory at ``addr`` and completes 16 bytes of transactions on ``mbar``
(with .multicast::cluster::all: at the same offsets in every CTA of the issuer's cluster).  The
response is opaque: query_cancel tells whether a cluster was cancelled and the ctaid of its first
CTA, which is where the scheduler's next tile comes from; reading the ctaid of a response that
cancelled nothing is undefined (tile-sim writes an undefined value: its use is reported, not the
read, since schedulers read it unconditionally and use it only when is_canceled is true), and so
is a try_cancel after one that failed (reported).

tile-sim launches the clusters one after another in linear order, so the running cluster's
try_cancel cancels the next one not yet launched (which then never runs).  The ISA leaves which
cluster to the hardware and the response's bits unspecified: :data:`ASSUMED` names both.  Which
cluster is cancelled is decided at issue; under a schedule policy (sim/explore/) the response's
bytes and their complete_tx are held in flight and land late.
"""

from __future__ import annotations

from .. import findings
from ..errors import EmulationError
from ..state import Kept
from ..undefined import undefined
from . import mbarrier as mbar

ASSUMED = {
    "which": "the lowest-numbered cluster of the grid not yet launched (tile-sim launches in order)",
    # bytes 0-11: the first CTA's ctaid x, y, z (u32 each); byte 12 bit 0: a cluster was cancelled
    "response": "ctaid.x | ctaid.y << 32 | ctaid.z << 64 | canceled << 96",
}
RULE = "clusterlaunchcontrol"
FAILED = Kept("clc", "cta", lambda cta: {"failed": False})


def _cancel_next(M):
    """The first ctaid of the cluster cancelled, or None."""
    ncl = M.nclusters()
    cur = M.running_cluster if M.running_cluster is not None else -1
    for lin in range(cur + 1, ncl):
        if lin not in M.cancelled:
            M.cancelled.add(lin)
            gx, gy, _ = M.grid
            cx, cy, cz = M.cluster_dims
            nx, ny = gx // cx, gy // cy
            return ((lin % nx) * cx, ((lin // nx) % ny) * cy, (lin // (nx * ny)) * cz)
    return None


def decode_try_cancel(d, inst):
    p = inst.parts
    known = {"clusterlaunchcontrol", "try_cancel", "async", "shared::cta",
             "mbarrier::complete_tx::bytes", "multicast::cluster::all", "b128"}
    if [q for q in p if q not in known] or "async" not in p or "b128" not in p or \
            "mbarrier::complete_tx::bytes" not in p:
        raise d.error("clusterlaunchcontrol.try_cancel takes .async{.shared::cta}"
                      ".mbarrier::complete_tx::bytes{.multicast::cluster::all}.b128")
    multicast = "multicast::cluster::all" in p
    # without .shared::cta both addresses are generic (PTX ISA: generic addressing when the state
    # space is not given), as CUTLASS passes them
    space = "shared" if "shared::cta" in p else "generic"
    addr, mb = d.operands(2)
    ae = d.compile([f"return {d.addr_expr(addr)[0]}"])
    me = d.compile([f"return {d.addr_expr(mb)[0]}"])
    M, line = d.M, inst.line

    def f(t):
        _, off = M.shared_target(t, ae(t), space)
        mcta, moff = M.shared_target(t, me(t), space)
        if off % 16:
            raise EmulationError(f"clusterlaunchcontrol.try_cancel: response address 0x{off:x} "
                                 f"is not 16-byte aligned")
        st = FAILED.of(t.cta)
        if st["failed"]:
            findings.report(M, RULE, f"line {line}: clusterlaunchcontrol.try_cancel after a "
                            f"try_cancel of this CTA that cancelled nothing (undefined)", line=line)
        first = _cancel_next(M)
        if first is None:
            st["failed"] = True
        x, y, z = first if first is not None else (0, 0, 0)
        resp = x | y << 32 | z << 64 | (first is not None) << 96
        data = resp.to_bytes(16, "little")
        targets = t.cta.cluster.ctas if multicast else [t.cta]

        def land():  # the response lands, then complete_tx (in flight under a schedule policy)
            for c in targets:
                sm = c.smem
                sm.check(off, 16, "clusterlaunchcontrol response")
                if sm.mbarriers and any(sm.mbar_mask[off:off + 16]):
                    raise EmulationError(f"clusterlaunchcontrol.try_cancel: the response "
                                         f"overwrites a live mbarrier in CTA {c.idx}")
                sm.buf[off:off + 16] = data
                sm.wtag[off:off + 16] = 0  # written by the async proxy
                b = (c if multicast else mcta).smem.mbarriers.get(moff)
                if b is None:
                    raise EmulationError(f"clusterlaunchcontrol.try_cancel: no mbarrier "
                                         f"initialised at shared 0x{moff:x} of CTA {c.idx}")
                mbar.complete_tx(M, b, 16)
        M.complete_async(land, "clusterlaunchcontrol.try_cancel", line, t)
    return f


def decode_query_cancel(d, inst):
    p = inst.parts
    dst, resp = d.operands(2)
    get = d.compile([f"return {d.src(resp, 128)}"])
    M, line = d.M, inst.line
    if "is_canceled" in p:
        if p[-2:] != ["pred", "b128"]:
            raise d.error("query_cancel.is_canceled takes .pred.b128")
        sd = d.slot(dst)

        def f(t):
            t.r[sd] = (get(t) >> 96) & 1
        return f
    dim = next((q for q in p if q.startswith("get_first_ctaid")), None)
    if dim is None:
        raise d.error("clusterlaunchcontrol.query_cancel takes .is_canceled or .get_first_ctaid")
    if dim == "get_first_ctaid":
        if "v4" not in p or dst[0] != "vec" or len(dst[1]) != 4:
            raise d.error("query_cancel.get_first_ctaid takes .v4.b32.b128 {x, y, z, _}")
        slots = [None if o[0] == "sink" else d.slot(o) for o in dst[1][:3]]
    else:
        axis = dim.split("::")[-1]
        if axis not in ("x", "y", "z"):
            raise d.error("query_cancel.get_first_ctaid::{x,y,z}")
        slots = [None] * 3
        slots["xyz".index(axis)] = d.slot(dst)

    und = undefined(M, RULE, line, "the ctaid query_cancel.get_first_ctaid reads from a response "
                    "that cancelled no cluster")

    def g(t):
        v = get(t)
        # a failed response's ctaid is undefined: CUTLASS reads it in every case and uses it only
        # when is_canceled is true, so only a use is reported (sim/undefined.py, W11)
        wrap = int if (v >> 96) & 1 else und
        for i, s in enumerate(slots):
            if s is not None:
                t.r[s] = wrap((v >> (32 * i)) & 0xFFFFFFFF)
    return g


findings.RULES.setdefault(RULE, (
    "PTX ISA, clusterlaunchcontrol: get_first_ctaid of a response that did not cancel a cluster, "
    "and a try_cancel after a failed one, are undefined behaviour"))
