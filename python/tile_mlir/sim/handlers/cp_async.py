"""cp.async (LDGSTS, sm_80+): global -> shared copies completed by per-thread groups.

PTX ISA ("Data Movement and Conversion Instructions: cp.async", "cp.async.commit_group",
"cp.async.wait_group / cp.async.wait_all", "cp.async.mbarrier.arrive"):

    cp.async.ca.shared{::cta}.global{.level::...} [dst], [src], cp-size{, src-size}{, cache-policy};
    cp.async.cg.shared{::cta}.global{.level::...} [dst], [src], 16{, src-size}{, cache-policy};
    cp.async.commit_group;         cp.async.wait_group N;         cp.async.wait_all;
    cp.async.mbarrier.arrive{.noinc}.shared{::cta}.b64 [mbar];

* cp-size is 4, 8 or 16 bytes (.cg: 16 only); dst and src are aligned to cp-size. With src-size
  (< cp-size) only src-size bytes are read and the rest of the destination is zero-filled.
* The copies of a thread are asynchronous and belong to that thread. commit_group closes the thread's
  pending (uncommitted) copies into a group; wait_group N returns when at most the N most recent
  groups are still pending; wait_all = commit_group + wait_group 0. Nothing else orders them.

Model (one legal schedule): a copy is checked at issue (alignment, bounds) and *performed* at the wait
that covers its group (or at cp.async.mbarrier.arrive, which tracks all prior copies of the thread):
only then are the source bytes read and the destination written.  Destination bytes carry the id of
the copy that writes them.  A read or write of such a byte by any thread before the copy has been
performed, or after it but without happens-before with the issuer's wait (the issuer's wait publishes
a per-issuer sequence number through the same knowledge that barriers and mbarriers carry, see
sync.py), is a race: EmulationError under strict, a warning otherwise.  A thread that exits with
copies not yet waited for is an error (their effect is unobservable, and the shared memory they target
may be reused).  The destination writes are generic-proxy writes of the issuing thread, so a later
tcgen05.cp reading them needs fence.proxy.async after the wait, as for st.shared.

Kept (state.Kept): per thread its groups, per CTA the destination tags, per kernel the copy records.
Hooks: shared-memory loads and stores (the races above, tcgen05.cp's reads included) and thread exit.
"""

from __future__ import annotations

import numpy as np

from ..errors import EmulationError
from ..memory import own_offset
from ..state import Kept, shared_write
from . import mbarrier as mbar
from .sync import merge_seen
from .tma import record_ids

KNOWN = {"cp", "async", "ca", "cg", "shared", "shared::cta", "global", "L2::cache_hint",
         "L2::64B", "L2::128B", "L2::256B", "L1::evict_last", "L1::evict_normal",
         "L1::evict_first", "L2::evict_last", "L2::evict_normal", "L2::evict_first"}


class CpAsyncRecord:
    __slots__ = ("id", "line", "issuer", "cta", "dst", "src", "cp_size", "src_size", "done",
                 "seq")

    def __init__(self, rid, line, issuer, dst, src, cp_size, src_size):
        self.id = rid
        self.line = line
        self.issuer = issuer
        self.cta = issuer.cta
        self.dst = dst
        self.src = src
        self.cp_size = cp_size
        self.src_size = src_size
        self.done = False
        self.seq = -1  # issuer's wait sequence number at which the copy was performed


class _Groups:
    """A thread's copies: issued and not yet committed, then committed groups (oldest first);
    ``seq`` counts its waits that performed copies; ``ordered``: ids of performed copies that
    happen-before this thread's next access (it stays so: performed copies stay performed and a
    thread's knowledge only grows), so a later access to their bytes needs no check."""
    __slots__ = ("cur", "groups", "seq", "ordered")

    def __init__(self, t):
        self.cur = []
        self.groups = []
        self.seq = 0
        self.ordered = set()


GROUPS = Kept("cp_async", "thread", _Groups)
# per shared byte: id of the copy whose destination it is (0: none); ids index RECORDS
TAGS = Kept("cp_async", "cta", lambda cta: np.zeros(cta.smem.size, dtype=np.int32))
RECORDS = Kept("cp_async", "machine", lambda M: {})


def knowledge_key(t):
    return ("cp.async", t.gid)


# ------------------------------------------------------------------------------- issue
def decode_cp_async(d, inst):
    p = inst.parts
    if len(p) < 3 or p[2] not in ("ca", "cg"):
        raise d.error("cp.async needs .ca or .cg")
    kind = p[2]
    extra = [q for q in p if q not in KNOWN]
    if extra:
        raise d.error(f"unknown cp.async qualifier(s) {extra}")
    if "global" not in p or not ("shared" in p or "shared::cta" in p):
        raise d.error("cp.async copies .global -> .shared{::cta}")
    ops = inst.operands
    if len(ops) < 3:
        raise d.error("cp.async needs `[dst], [src], cp-size{, src-size}`")
    if ops[2][0] != "imm" or ops[2][1] not in (4, 8, 16):
        raise d.error(f"cp.async cp-size must be an immediate 4, 8 or 16, got {ops[2]}")
    cp_size = ops[2][1]
    if kind == "cg" and cp_size != 16:
        raise d.error(f"cp.async.cg supports only cp-size 16, got {cp_size}")
    rest = ops[3:]
    if "L2::cache_hint" in p:
        if not rest:
            raise d.error(".L2::cache_hint needs a cache-policy operand")
        rest = rest[:-1]
    if len(rest) > 1:
        raise d.error("cp.async: too many operands (ignore-src predicates are not emulated)")
    src_size = d.src(rest[0], 32) if rest else str(cp_size)
    d.M.hooks.register(shared_load=check_load, shared_store=check_store, thread_exit=check_exit)
    de, _ = d.addr_expr(ops[0])
    se, _ = d.addr_expr(ops[1])
    return d.compile([f"_issue(M, t, {de}, {se}, {cp_size}, {src_size}, {inst.line})"],
                     {"_issue": issue})


def issue(M, t, dst, src, cp_size, src_size, line):
    dst = own_offset(t.cta, dst)
    if dst % cp_size:
        raise EmulationError(f"cp.async destination shared 0x{dst:x} is not aligned to its "
                             f"cp-size {cp_size}")
    if src % cp_size:
        raise EmulationError(f"cp.async source global 0x{src:x} is not aligned to its cp-size "
                             f"{cp_size}")
    if src_size > cp_size:
        raise EmulationError(f"cp.async src-size {src_size} exceeds cp-size {cp_size}")
    t.cta.smem.check(dst, cp_size, "cp.async destination")
    if src_size:
        M.gmem.find(src, src_size)  # bounds now; the bytes are read when the copy is performed
    records = RECORDS.of(M)
    rec = CpAsyncRecord(len(records) + 1, line, t, dst, src, cp_size, src_size)
    records[rec.id] = rec
    if not _same_copy(M, t.cta, rec):
        _check_access(M, t, t.cta, dst, cp_size, "cp.async destination of another copy")
    TAGS.of(t.cta)[dst:dst + cp_size] = rec.id
    GROUPS.of(t).cur.append(rec)
    M.progress += 1


# ------------------------------------------------------------------------------- completion
def decode_commit_group(d, inst):
    if inst.operands:
        raise d.error("cp.async.commit_group takes no operands")
    return d.compile(["_commit(M, t)"], {"_commit": commit})


def commit(M, t):
    st = GROUPS.of(t)
    st.groups.append(st.cur)  # an empty group is legal and completes trivially
    st.cur = []


def decode_wait_group(d, inst):
    ops = inst.operands
    if len(ops) != 1 or ops[0][0] != "imm" or ops[0][1] < 0:
        raise d.error("cp.async.wait_group needs an integer constant N >= 0")
    return d.compile([f"_wait(M, t, {ops[0][1]})"], {"_wait": wait_group})


def decode_wait_all(d, inst):
    if inst.operands:
        raise d.error("cp.async.wait_all takes no operands")
    return d.compile(["_commit(M, t)", "_wait(M, t, 0)"], {"_commit": commit, "_wait": wait_group})


def wait_group(M, t, n):
    st = GROUPS.of(t)
    k = len(st.groups) - n
    if k <= 0:
        return
    done = [rec for g in st.groups[:k] for rec in g]
    st.groups = st.groups[k:]
    _perform(M, t, st, done)


def _perform(M, t, st, recs):
    st.seq += 1
    seq = st.seq
    key = knowledge_key(t)
    if t.seen.get(key, -1) < seq:
        t.seen[key] = seq
    for rec in recs:
        rec.done = True
        rec.seq = seq
    tags = TAGS.of(t.cta)
    for rec in recs:  # issue order (overlapping pending copies were flagged at issue)
        if _same_copy(M, t.cta, rec):  # over another copy of the same bytes: no order to check
            tags[rec.dst:rec.dst + rec.cp_size] = 0
        val = M.gmem.read(rec.src, rec.src_size) if rec.src_size else 0
        shared_write(M, t, t.cta, rec.dst, rec.cp_size, val)  # zero-fills beyond src-size
        tags[rec.dst:rec.dst + rec.cp_size] = rec.id  # shared_write cleared the tags
    M.progress += 1


# ------------------------------------------------------------------------------- mbarrier arrive
def decode_mbarrier_arrive(d, inst):
    p = inst.parts
    noinc = "noinc" in p
    if "b64" not in p:
        raise d.error("cp.async.mbarrier.arrive needs .b64")
    ops = inst.operands
    if len(ops) != 1:
        raise d.error("cp.async.mbarrier.arrive needs `[mbar]`")
    ae, sym = d.addr_expr(ops[0])
    space = "shared" if ("shared" in p or "shared::cta" in p or sym == "shared") else "generic"
    return d.compile([f"_arr(M, t, {ae}, '{space}', {noinc})"], {"_arr": mbarrier_arrive})


def mbarrier_arrive(M, t, a, space, noinc):
    """All prior cp.async of the thread complete (performed now, a legal schedule), then the arrive
    triggers: with .noinc it counts as one of the expected arrivals; without, the pending count was
    incremented by one at issue, so the net effect on the phase is nil but the knowledge is carried."""
    mb = mbar.get(M, t, a, space, "cp.async.mbarrier.arrive")
    st = GROUPS.of(t)
    recs = [rec for g in st.groups for rec in g] + st.cur
    st.groups, st.cur = [], []
    _perform(M, t, st, recs)
    if noinc:
        mbar.arrive(M, t, mb, 1)
    else:
        mb.carry = merge_seen([t], mb.carry)


# ------------------------------------------------------------------------------- race checks
def _same_copy(M, cta, rec):
    """Whether every byte of ``rec``'s destination is the destination of one other copy of the same
    bytes: same destination, cp-size, source and src-size (a CuTe copy of a broadcast scale
    element: one global word to one shared word from every lane of a warp).  Such writes are
    unordered, a data race in the PTX memory model, but of the same size over the same bytes (a
    uniform-size race, under which the model's axioms still hold) and carrying the same global
    bytes, so every coherence order leaves the same value: no order is relied on, nothing to
    report, and a thread ordered after either copy reads those bytes.  Copies of different
    sources or sizes still race (_check_access)."""
    tags = TAGS.peek(cta)
    if tags is None:
        return False
    ids = tags[rec.dst:rec.dst + rec.cp_size].tolist()  # (cp-size <= 16 bytes)
    rid = ids[0]
    if rid == 0 or rid == rec.id or ids.count(rid) != len(ids):
        return False
    other = RECORDS.of(M)[rid]
    return (other.dst == rec.dst and other.cp_size == rec.cp_size and other.src == rec.src
            and other.src_size == rec.src_size)


def _check_access(M, t, cta, off, n, what):
    tags = TAGS.peek(cta)
    if tags is None:
        return
    ids = record_ids(tags[off:off + n])
    if not ids:
        return
    ordered = GROUPS.of(t).ordered
    records = RECORDS.of(M)
    for rid in ids:  # (ascending)
        if rid in ordered:
            continue
        rec = records[rid]
        if not rec.done:
            M.violation(f"{what} at shared 0x{off:x} ({n} bytes) by thread {M.where(t)} races "
                        f"with the cp.async issued at line {rec.line} by thread "
                        f"{M.where(rec.issuer)}, which has not been waited for "
                        f"(cp.async.wait_group/wait_all by its issuer, then a barrier)",
                        key=("cpa-race", what, rec.line), race=True)
            continue
        if rec.issuer is t or t.seen.get(knowledge_key(rec.issuer), -1) >= rec.seq:
            ordered.add(rid)
        else:
            M.violation(f"{what} at shared 0x{off:x} ({n} bytes) by thread {M.where(t)} races "
                        f"with the cp.async issued at line {rec.line} by thread "
                        f"{M.where(rec.issuer)}: its issuer waited for it, but this thread has "
                        f"not synchronised with that wait (barrier or mbarrier)",
                        key=("cpa-sync", what, rec.line), race=True)


def check_load(M, t, cta, off, n, what):
    """Shared-memory load observer (state.Hooks): reading a copy's destination races unless the
    copy was performed and its issuer's wait happens-before the read."""
    _check_access(M, t, cta, off, n, what)


def check_store(M, t, cta, off, n):
    """Shared-memory store observer (state.Hooks): as a load, then the bytes no longer hold
    cp.async data (their tags are cleared)."""
    tags = TAGS.peek(cta)
    if tags is None:
        return
    if record_ids(tags[off:off + n]):
        _check_access(M, t, cta, off, n, "store")
        tags[off:off + n] = 0


# ------------------------------------------------------------------------------- thread exit
def check_exit(M, t):
    """Thread-exit hook (state.Hooks): a thread may not exit with cp.async copies not waited for."""
    st = GROUPS.peek(t)
    if st is not None and (st.cur or any(st.groups)):
        recs = st.cur + [r for gr in st.groups for r in gr]
        lines = sorted({r.line for r in recs})
        raise EmulationError(f"thread {M.where(t)} exits with {len(recs)} cp.async "
                             f"cop{'y' if len(recs) == 1 else 'ies'} (line(s) {lines}) "
                             f"not waited for (cp.async.wait_group / wait_all)")
