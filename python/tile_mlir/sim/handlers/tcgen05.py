"""tcgen05.{alloc, dealloc, relinquish_alloc_permit, cp, commit, ld, st, wait, fence}.

Semantics follow the PTX ISA as collected in docs/tcgen05.md (§1 tensor memory, §4 descriptor, §6
address formula, §7 cp table, §10 ordering, §11 ld/st); where PTX is silent, the assumptions are
docs/emulator.md Table A.

Asynchrony model of tcgen05.cp: the copy reads shared memory and computes its result at issue
time into a pending record; the destination TMEM cells are tagged with the record at issue and
written when the issuing thread's next ``tcgen05.commit`` of the same cta_group retires it, just
before the commit's mbarrier arrive.  Every later commit of that thread and cta_group covers it too
(PTX ISA tcgen05.commit: the mbarrier tracks all prior async tcgen05 operations of the executing
thread), so a ``tcgen05.ld`` of a tagged cell is legal only after the reading thread (or a thread it
synchronised with through a barrier) observed the completion of the phase of any commit issued
after the write AND the reading thread executed ``tcgen05.fence::after_thread_sync`` afterwards
(docs/tcgen05.md §10; the model is docs/emulator.md A14).

Kept (state.Kept): per thread its uncommitted cps, the mbarrier phases its commits arrive on,
whether a tcgen05.ld awaits tcgen05.wait::ld and its knowledge as of its last
fence::after_thread_sync; per CTA the shared ranges that in-flight cps read; per kernel the cp
records and the .cta_group in use.  Hooks: shared stores into those ranges are write-after-read
races; a thread's exit retires its uncommitted cps (with a warning); a CTA done with TMEM still
allocated is a violation.  tcgen05.mma (handlers/tcgen05_mma.py) joins the same machinery.
"""

from __future__ import annotations

import numpy as np

from .. import findings, memory as mem
from ..errors import EmulationError
from ..smem_desc import check_for_cp, decode as decode_desc
from ..state import Kept, State, shared_observe_load
from ..swizzle import ROW_PITCH, swizzle_np
from . import ld_poison, mbarrier as mbar

# shape -> (rows, 16-byte chunks per row)
CP_SHAPES = {"128x256b": (128, 2), "128x128b": (128, 1), "4x256b": (4, 2), "64x128b": (64, 1),
             "32x128b": (32, 1)}
CP_MULTICAST = {"128x256b": (None,), "128x128b": (None,), "4x256b": (None,),
                "64x128b": ("warpx2::02_13", "warpx2::01_23"), "32x128b": ("warpx4",)}


def _cta_group(d, inst):
    for q in inst.parts:
        if q.startswith("cta_group::"):
            v = q.split("::")[1]
            if v not in ("1", "2"):
                raise d.error(f"invalid .cta_group::{v}")
            return int(v)
    return None


def check_cta_group(M, cg, line):
    if cg is None:
        return
    k = KERNEL.of(M)
    if k.cta_group is None:
        k.cta_group = (cg, line)
    elif k.cta_group[0] != cg:
        raise EmulationError(f"mixed .cta_group values in one kernel: ::{cg} here, "
                             f"::{k.cta_group[0]} at line {k.cta_group[1]} (every tcgen05 "
                             f"instruction of a kernel must use the same value)")


def _pair(M, t, cg):
    c = t.cta
    if cg != 2:
        return [c]
    ctas = c.cluster.ctas
    base = c.rank & ~1
    if base + 1 >= len(ctas):
        raise EmulationError(f".cta_group::2 needs a CTA pair, but CTA rank {c.rank} has no peer "
                             f"in a cluster of {len(ctas)} CTA(s)")
    return [ctas[base], ctas[base + 1]]


def _uniform(parts, fn, what):
    vals = [fn(t) for t in parts]
    if any(v != vals[0] for v in vals):
        bad = [t.lane for t, v in zip(parts, vals) if v != vals[0]]
        raise EmulationError(f"{what} must be the same in every lane (lanes {bad[:8]} differ from "
                             f"lane {parts[0].lane}: {[hex(v) for v in vals[:2]]} ...)")
    return vals[0]


# ------------------------------------------------------------------------------- state
class _ThreadState:
    """``pending``: the thread's cps not yet committed; ``commits``: (cta_group, mbarrier, phase
    index) of each arrive of its commits, in issue order; ``ld_pending``: a tcgen05.ld of it not
    yet waited for (tcgen05.wait::ld); ``synced``: its knowledge (Thread.seen) as of its last
    tcgen05.fence::after_thread_sync."""
    __slots__ = ("pending", "commits", "ld_pending", "synced")

    def __init__(self, t):
        self.pending = []
        self.commits = []
        self.ld_pending = False
        self.synced = {}


class _KernelState:
    """``records``: every cp by id (TMEM cells name the cp that writes them); ``cta_group``:
    (value, line) of the first tcgen05 instruction with .cta_group."""
    __slots__ = ("records", "cta_group")

    def __init__(self, M):
        self.records = {}
        self.cta_group = None


THREAD = Kept("tcgen05", "thread", _ThreadState)
# (lo, hi, cp record): shared byte ranges that cps not yet completed read
INFLIGHT = Kept("tcgen05", "cta", lambda cta: [])
KERNEL = Kept("tcgen05", "machine", _KernelState)


class CpRecord:
    """One tcgen05.cp in flight; ``opcode`` names it in race messages, ``first_commit`` indexes the
    issuer's commit list (set by :func:`issue`)."""
    __slots__ = ("id", "line", "cg", "writes", "chunks", "retired", "first_commit", "forced",
                 "issuer", "opcode")

    def __init__(self, rid, line, cg, issuer):
        self.id = rid
        self.line = line
        self.cg = cg
        self.writes = []  # (cta, lanes, cols, values)
        self.chunks = []  # (cta, ndarray of 16-byte chunk indices read)
        self.retired = False
        self.first_commit = 0
        self.forced = False
        self.issuer = issuer
        self.opcode = "tcgen05.cp"


def issue(t, rec):
    """Put ``rec`` (a cp or an MMA) on its issuing thread's pending list; the commits the thread
    issues from now on cover it."""
    st = THREAD.of(t)
    rec.first_commit = len(st.commits)
    st.pending.append(rec)


def completions(rec):
    """(mbarrier, phase index) of every commit arrive that covers ``rec``: each commit of its
    issuer and cta_group issued after it (PTX ISA tcgen05.commit), in issue order."""
    for cg, mb, n in THREAD.of(rec.issuer).commits[rec.first_commit:]:
        if cg == rec.cg:
            yield mb, n


def cp_completed(rec) -> bool:
    if not rec.retired:
        return False
    return rec.forced or any(mb.completed > n for mb, n in completions(rec))


def retire_pending(M, t, cg):
    st = THREAD.of(t)
    keep, done = [], []
    for rec in st.pending:
        (done if cg is None or rec.cg == cg else keep).append(rec)
    st.pending = keep
    for rec in done:
        for cta, lanes, cols, vals in rec.writes:
            tm = cta.tmem
            tm.cells[lanes, cols] = vals
            tm.written[lanes, cols] = True
        rec.retired = True
        if cg is None:
            rec.forced = True


def retire_at_exit(M, t):
    """Thread-exit hook (state.Hooks): cps the thread never committed are retired, with a warning."""
    st = THREAD.peek(t)
    if st is not None and st.pending:
        lines = sorted({rec.line for rec in st.pending})
        ops = "/".join(sorted({rec.opcode for rec in st.pending}))
        M.warn(f"thread {M.where(t)} exited with {ops} (line(s) {lines}) never "
               f"committed; retired at exit", key=("uncommitted", tuple(lines)))
        retire_pending(M, t, None)


def check_inflight(M, t, cta, off, n):
    """Shared-memory store observer (state.Hooks): a store into bytes that a cp not yet completed
    reads is a write-after-read race."""
    inflight = INFLIGHT.peek(cta)
    if not inflight:
        return
    keep = []
    for lo, hi, rec in inflight:
        if cp_completed(rec):
            continue
        keep.append((lo, hi, rec))
        if lo < off + n and off < hi:
            M.violation(f"write-after-read race: store to shared 0x{off:x} ({n} bytes) while the "
                        f"{rec.opcode} issued at line {rec.line} that reads [0x{lo:x}, 0x{hi:x}) has "
                        f"not completed (wait on its commit's mbarrier first)",
                        key=("war", rec.line), race=True)
    inflight[:] = keep


# ------------------------------------------------------------------------------- alloc / dealloc
def decode_alloc(d, inst):
    cg = _cta_group(d, inst)
    dst, ncols = d.operands(2)
    ae, sym = d.addr_expr(dst)
    space = "shared" if ("shared::cta" in inst.parts or "shared" in inst.parts or sym == "shared") \
        else "generic"
    fa = d.compile([f"return {ae}"])
    fn_ = d.compile([f"return {d.src(ncols, 32)}"])
    M = d.M
    M.hooks.register(cta_done=check_tmem_freed)
    line = inst.line

    def f(w, parts):
        check_cta_group(M, cg, line)
        a = _uniform(parts, fa, "tcgen05.alloc destination address")
        n = _uniform(parts, fn_, "tcgen05.alloc nCols")
        c = w.cta
        tm = c.tmem
        if n < 32 or n > 512 or n & (n - 1):
            raise EmulationError(f"tcgen05.alloc nCols={n}: must be a power of 2 in [32, 512]")
        if tm.relinquished:
            raise EmulationError("tcgen05.alloc after tcgen05.relinquish_alloc_permit in this CTA")
        dc, off = M.shared_target(parts[0], a, space)
        if dc is not c:
            raise EmulationError("tcgen05.alloc destination must be in the issuing CTA's shared "
                                 "memory")
        if off % 4:
            raise EmulationError(f"tcgen05.alloc destination 0x{off:x} is not 4-byte aligned")
        dc.smem.check(off, 4, "tcgen05.alloc destination")
        start = tm.first_fit(n)
        if start is None:
            if tm.allocs:  # may block until another warp deallocates
                for t in parts:
                    t.pc -= 1
                    t.state = State.ALLOC
                return
            raise EmulationError(f"tcgen05.alloc of {n} columns cannot be satisfied")
        if tm.last_ncols is not None and n > tm.last_ncols:
            M.warn(f"line {line}: tcgen05.alloc column count increased from {tm.last_ncols} to "
                   f"{n} within CTA {c.idx} (PTX: must not increase between allocations)",
                   key=("allocinc", line))
        tm.last_ncols = n
        tm.allocs[start] = (n, line)
        tm.owner[start:start + n] = start
        tm.cells[:, start:start + n] = mem.POISON
        tm.written[:, start:start + n] = False
        tm.src[:, start:start + n] = 0
        dc.smem.buf[off:off + 4] = start.to_bytes(4, "little")  # lane 0, first column
        M.progress += 1
    return f, None


def decode_dealloc(d, inst):
    cg = _cta_group(d, inst)
    taddr, ncols = d.operands(2)
    fa = d.compile([f"return {d.src(taddr, 32)}"])
    fn_ = d.compile([f"return {d.src(ncols, 32)}"])
    M = d.M
    line = inst.line

    def f(w, parts):
        check_cta_group(M, cg, line)
        a = _uniform(parts, fa, "tcgen05.dealloc taddr")
        n = _uniform(parts, fn_, "tcgen05.dealloc nCols")
        c = w.cta
        tm = c.tmem
        lane, col = a >> 16, a & 0xFFFF
        if lane:
            raise EmulationError(f"tcgen05.dealloc taddr 0x{a:08x} has lane field {lane} "
                                 f"(must be the address returned by tcgen05.alloc)")
        if col not in tm.allocs:
            if 0 <= col < mem.TMEM_COLS and tm.owner[col] >= 0:
                raise EmulationError(f"tcgen05.dealloc of column {col}, which is inside the "
                                     f"allocation starting at column {int(tm.owner[col])}, not "
                                     f"its start")
            raise EmulationError(f"tcgen05.dealloc of column {col}: no live allocation starts "
                                 f"there (unallocated TMEM or double free)")
        an, aline = tm.allocs[col]
        if an != n:
            raise EmulationError(f"tcgen05.dealloc nCols={n} differs from the {an} columns "
                                 f"allocated at line {aline}")
        for t in c.threads:
            st = THREAD.peek(t)
            for rec in st.pending if st is not None else ():
                for cta, lanes, cols, _ in rec.writes:
                    if cta is c and ((cols >= col) & (cols < col + n)).any():
                        raise EmulationError(f"tcgen05.dealloc of columns [{col}, {col + n}) "
                                             f"while the {rec.opcode} at line {rec.line} writing "
                                             f"them is not committed")
        if any(st.ld_pending for t in c.threads
               if t.state != State.EXITED and (st := THREAD.peek(t)) is not None):
            M.warn(f"line {line}: tcgen05.dealloc while a tcgen05.ld of CTA {c.idx} has not "
                   f"been waited for with tcgen05.wait::ld", key=("ldpend", line))
        tm.snapshot[:, col:col + n] = tm.cells[:, col:col + n]
        del tm.allocs[col]
        tm.owner[col:col + n] = -1
        M.progress += 1
        for t in c.threads:  # wake warps blocked in tcgen05.alloc
            if t.state == State.ALLOC:
                t.state = State.RUN
    return f, None


def check_tmem_freed(M, c):
    """CTA-done hook (state.Hooks): TMEM still allocated when the kernel exits is a violation; the
    snapshot keeps those columns' final contents."""
    tm = c.tmem
    if tm.allocs:
        ranges = ", ".join(f"[{s}, {s + n}) allocated at line {ln}"
                           for s, (n, ln) in sorted(tm.allocs.items()))
        msg = (f"kernel exit with TMEM still allocated in CTA {c.idx}: columns {ranges} "
               f"(every tcgen05.alloc needs a tcgen05.dealloc before exit)")
        for s, (n, _) in tm.allocs.items():
            tm.snapshot[:, s:s + n] = tm.cells[:, s:s + n]
        M.violation(msg)


def decode_relinquish(d, inst):
    cg = _cta_group(d, inst)
    M = d.M
    line = inst.line

    def f(w, parts):
        check_cta_group(M, cg, line)
        w.cta.tmem.relinquished = True
    return f, None


# ------------------------------------------------------------------------------- cp
class CpSpec:
    __slots__ = ("cg", "shape", "mc", "decomp", "line", "text")


def decode_cp(d, inst):
    p = inst.parts
    spec = CpSpec()
    spec.cg = _cta_group(d, inst)
    if spec.cg is None:
        raise d.error("tcgen05.cp needs .cta_group::1 or ::2")
    shapes = [q for q in p if q in CP_SHAPES]
    if len(shapes) != 1:
        raise d.error(f"tcgen05.cp needs exactly one shape of {sorted(CP_SHAPES)}")
    spec.shape = shapes[0]
    mcs = [q for q in p if q.startswith("warpx")]
    spec.mc = mcs[0] if mcs else None
    if spec.mc not in CP_MULTICAST[spec.shape]:
        need = CP_MULTICAST[spec.shape]
        raise d.error(f"shape .{spec.shape} " + (
            "takes no multicast qualifier" if need == (None,) else
            f"requires multicast {' or '.join('.' + x for x in need)}") +
            (f", got .{spec.mc}" if spec.mc else ""))
    spec.decomp = None
    if "b8x16" in p:
        fm = [q for q in p if q in ("b6x16_p32", "b4x16_p64")]
        if len(fm) != 1:
            raise d.error(".b8x16 needs a source format .b6x16_p32 or .b4x16_p64")
        spec.decomp = fm[0]
    known = {"tcgen05", "cp", "b8x16", "b6x16_p32", "b4x16_p64", spec.shape, spec.mc,
             f"cta_group::{spec.cg}"}
    extra = [q for q in p if q not in known]
    if extra:
        raise d.error(f"unknown tcgen05.cp qualifier(s) {extra}")
    spec.line, spec.text = inst.line, inst.text
    if len(inst.operands) != 2:
        raise d.error("tcgen05.cp needs `[taddr], s-desc`")
    ta, _ = d.addr_expr(inst.operands[0])
    d.M.hooks.register(shared_store=check_inflight, thread_exit=retire_at_exit)
    return d.compile([f"_cp(M, t, _spec, {ta}, {d.src(inst.operands[1], 64)})"],
                     {"_cp": exec_cp, "_spec": spec})


def _dest_lanes(shape, mc, L0, rows):
    r = np.arange(rows)
    if shape in ("128x256b", "128x128b"):
        return (L0 + r)[:, None]
    if shape == "4x256b":
        return (L0 + 32 * r)[:, None]
    if shape == "32x128b":
        return L0 + r[:, None] + 32 * np.arange(4)[None, :]
    if mc == "warpx2::02_13":  # rows 0-31 -> warps 0 and 2, rows 32-63 -> warps 1 and 3
        return L0 + r[:, None] + 64 * np.arange(2)[None, :]
    # warpx2::01_23: rows 0-31 -> warps 0 and 1, rows 32-63 -> warps 2 and 3
    base = (r % 32) + 64 * (r // 32)
    return L0 + base[:, None] + 32 * np.arange(2)[None, :]


def _decompress_b4(chunks):
    """b4x16_p64 -> b8x16: element i is nibble i of the first 8 bytes (low nibble first) and the
    output byte is nibble << 2.  This placement was measured on sm_103 (GB300) only, by a public
    probe log (docs/emulator.md A2); PTX shows it only in a figure."""
    lo = chunks[..., :8] & 0x0F
    hi = chunks[..., :8] >> 4
    nib = np.stack([lo, hi], axis=-1).reshape(chunks.shape[:-1] + (16,))
    return (nib << 2).astype(np.uint8)


def _decompress_b6(chunks):
    """b6x16_p32 -> b8x16: element i is bits [6i, 6i + 6) of the first 12 bytes read as one
    little-endian 96-bit word, and the output byte holds it in bits [5, 0] with 2 zero bits above.

    Model, not measurement: PTX draws this decompression only in figures (194-198). The text of PTX
    "Padding and Alignment of the Sub-byte Types" defines the 8-bit container form of 6-bit data
    (.b6p2x16: "6-bits of data at the LSB and 2-bits of padding at the MSB") and the packed source
    order (sixteen contiguous elements, as .b4x16_p64's measured low-nibble-first order); the sign
    then sits at bit 5 as in the measured b4 placement (nibble << 2). Unverified on silicon: an
    sm_100a measurement overrides this function (docs/emulator.md A1)."""
    b = chunks[..., :12].astype(np.uint32)
    words = b[..., 0::3] | (b[..., 1::3] << 8) | (b[..., 2::3] << 16)  # 4 x 24 bits = 4 elements each
    shifts = np.arange(4, dtype=np.uint32) * 6
    elems = (words[..., :, None] >> shifts) & 0x3F  # (..., 4 words, 4 elements)
    return elems.reshape(chunks.shape[:-1] + (16,)).astype(np.uint8)


_DECOMPRESS = {"b4x16_p64": _decompress_b4, "b6x16_p32": _decompress_b6}


def exec_cp(M, t, spec, taddr, desc):
    check_cta_group(M, spec.cg, spec.line)
    L0, C0 = (taddr >> 16) & 0xFFFF, taddr & 0xFFFF
    dd = decode_desc(desc)
    errs = check_for_cp(dd)
    if errs:
        raise EmulationError("invalid shared-memory descriptor for tcgen05.cp: " + "; ".join(errs)
                             + f" [{dd}]")
    if C0 % 4:
        raise EmulationError(f"tcgen05.cp column offset {C0} (taddr 0x{taddr:08x}) is not a "
                             f"multiple of 4 (128-bit aligned; docs/emulator.md A3)")
    rows, nch = CP_SHAPES[spec.shape]
    if spec.shape == "4x256b":
        if L0 > 31:
            raise EmulationError(f"tcgen05.cp.4x256b lane offset {L0} out of range 0..31")
    elif L0:
        raise EmulationError(f"tcgen05.cp.{spec.shape} lane offset {L0} must be 0 (its footprint "
                             f"covers all 128 lanes)")
    ncols = 4 * nch
    if C0 + ncols > mem.TMEM_COLS:
        raise EmulationError(f"tcgen05.cp columns [{C0}, {C0 + ncols}) exceed 512")
    mode = dd.swizzle
    P = ROW_PITCH[mode]
    r = np.arange(rows, dtype=np.int64)
    c = np.arange(nch, dtype=np.int64)
    lin = (dd.start + (r // 8) * dd.sbo + (r % 8) * P)[:, None] + \
        ((c * dd.lbo) if mode == 0 else (c * 16))[None, :]
    phys = swizzle_np(lin, mode)  # (rows, nch) byte addresses of 16-byte chunks
    lanes = _dest_lanes(spec.shape, spec.mc, L0, rows)  # (rows, k)
    k = lanes.shape[1]
    records = KERNEL.of(M).records
    rec = CpRecord(len(records) + 1, spec.line, spec.cg, t)
    records[rec.id] = rec
    for cta in _pair(M, t, spec.cg):
        sm = cta.smem
        lo, hi = int(phys.min()), int(phys.max()) + 16
        if lo < 0 or hi > sm.size:
            raise EmulationError(f"tcgen05.cp reads shared bytes [0x{lo:x}, 0x{hi:x}) of CTA "
                                 f"{cta.idx}, outside its {sm.size}-byte shared memory [{dd}]")
        idx = phys[:, :, None] + np.arange(16)[None, None, :]
        _check_proxy(M, t, cta, idx, spec)
        if M.hooks.shared_load:
            for off in np.unique(phys):
                shared_observe_load(M, t, cta, int(off), 16, "tcgen05.cp read")
        data = sm.np[idx]  # (rows, nch, 16) uint8
        if spec.decomp:
            data = _DECOMPRESS[spec.decomp](data)
        vals = np.ascontiguousarray(data).view("<u4").reshape(rows, ncols)
        tm = cta.tmem
        err = tm.check_cols(C0, C0 + ncols)
        if err:
            raise EmulationError(f"tcgen05.cp writes TMEM of CTA {cta.idx} at columns "
                                 f"[{C0}, {C0 + ncols}): {err}")
        L = np.repeat(lanes, ncols, axis=1).reshape(rows, k, ncols)
        C = np.broadcast_to(C0 + np.arange(ncols), (rows, k, ncols))
        V = np.broadcast_to(vals[:, None, :], (rows, k, ncols))
        Lf, Cf, Vf = L.reshape(-1), np.ascontiguousarray(C).reshape(-1), \
            np.ascontiguousarray(V).reshape(-1)
        rec.writes.append((cta, Lf, Cf, Vf))
        tm.src[Lf, Cf] = rec.id
        ch = np.unique(phys.reshape(-1) // 16)
        rec.chunks.append((cta, ch))
        INFLIGHT.of(cta).append((lo, hi, rec))
    issue(t, rec)
    M.progress += 1


def _check_proxy(M, t, cta, idx, spec):
    tags = cta.smem.wtag[idx]
    nz = tags[tags != 0]
    if not nz.size:
        return
    by_gid = M.thread_by_gid
    for tag in np.unique(nz):
        gid, epoch = (int(tag) >> 32) - 1, int(tag) & 0xFFFFFFFF
        w = by_gid(gid)
        if w.fence_count == epoch:
            pos = np.argwhere(tags == tag)[0]
            addr = int(idx[tuple(pos)])
            M.violation(
                f"tcgen05.cp (async proxy) reads shared byte 0x{addr:x} of CTA {cta.idx} written "
                f"by a generic-proxy store of thread {M.where(w)} that was not followed by "
                f"fence.proxy.async(.shared::cta) by the writer (docs/tcgen05.md §10)",
                key=("proxy", spec.line, gid))


# ------------------------------------------------------------------------------- commit
def decode_commit(d, inst):
    p = inst.parts
    cg = _cta_group(d, inst)
    if "mbarrier::arrive::one" not in p:
        raise d.error("tcgen05.commit needs .mbarrier::arrive::one")
    multicast = "multicast::cluster" in p
    ops = d.operands(1, 2)
    ae, sym = d.addr_expr(ops[0])
    space = "cluster" if "shared::cluster" in p else ("shared" if sym == "shared" else "generic")
    if multicast and len(ops) != 2:
        raise d.error(".multicast::cluster needs a 16-bit ctaMask operand")
    me = d.src(ops[1], 16) if multicast else "None"
    return d.compile([f"_commit(M, t, {cg}, {ae}, '{space}', {me}, {inst.line})"],
                     {"_commit": exec_commit})


def exec_commit(M, t, cg, a, space, cmask, line):
    check_cta_group(M, cg, line)
    space = findings.generic_as_shared(M, t, a, space, "tcgen05.commit", line)
    if cmask is None:
        targets = [mbar.get(M, t, a, space, "tcgen05.commit")]
    else:
        _, off = mbar.locate(M, t, a, space, "tcgen05.commit")
        ctas = t.cta.cluster.ctas
        targets = []
        for k in range(16):
            if (cmask >> k) & 1:
                if k >= len(ctas):
                    raise EmulationError(f"tcgen05.commit ctaMask 0x{cmask:04x} names CTA rank "
                                         f"{k}, but the cluster has {len(ctas)} CTA(s)")
                mb = ctas[k].smem.mbarriers.get(off)
                if mb is None:
                    raise EmulationError(f"tcgen05.commit: use of an uninitialised mbarrier at "
                                         f"shared 0x{off:x} of CTA {ctas[k].idx}")
                targets.append(mb)
    retire_pending(M, t, cg)
    THREAD.of(t).commits.extend((cg, mb, mb.completed) for mb in targets)
    for mb in targets:
        mbar.arrive(M, t, mb, 1)


# ------------------------------------------------------------------------------- ld / st
LDST_SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
REGS_PER_X = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}


def thread_map(shape, nregs, imm=0):
    """(rows, cols) arrays of shape (32, nregs): TMEM position of register i of thread t relative
    to taddr (docs/emulator.md A15; docs/tcgen05.md §11)."""
    t = np.arange(32)[:, None]
    i = np.arange(nregs)[None, :]
    if shape == "32x32b":
        return np.broadcast_to(t, (32, nregs)), np.broadcast_to(i, (32, nregs))
    if shape == "16x64b":
        return np.broadcast_to((t >> 2) + 8 * (t & 1), (32, nregs)), 2 * i + ((t >> 1) & 1)
    if shape == "16x128b":
        j, h = i >> 1, i & 1
        return (t >> 2) + 8 * h, 4 * j + (t & 3)
    if shape == "16x256b":
        j, h, k = i >> 2, (i >> 1) & 1, i & 1
        return (t >> 2) + 8 * h, 8 * j + 2 * (t & 3) + k
    if shape == "16x32bx2":
        return np.broadcast_to(t & 15, (32, nregs)), i + np.where(t >= 16, imm, 0)
    raise ValueError(shape)


def _ldst_decode(d, inst, is_ld):
    p = inst.parts
    shapes = [q for q in p if q in LDST_SHAPES]
    if len(shapes) != 1:
        raise d.error(f"needs one shape of {LDST_SHAPES}")
    shape = shapes[0]
    xs = [q for q in p if q.startswith("x") and q[1:].isdigit()]
    if len(xs) != 1:
        raise d.error("needs a .xN qualifier")
    num = int(xs[0][1:])
    if num not in (1, 2, 4, 8, 16, 32, 64, 128):
        raise d.error(f".x{num} is invalid (N must be a power of 2 up to 128)")
    nregs = num * REGS_PER_X[shape]
    if nregs > 128:
        raise d.error(f".{shape}.x{num} needs {nregs} registers per thread (> 128): invalid")
    pack = ("pack::16b" in p) if is_ld else ("unpack::16b" in p)
    ops = d.operands(2, 3)
    if is_ld:  # ld [d], [taddr](, imm)
        regs, addr, rest = ops[0], ops[1], ops[2:]
    elif len(ops) == 3:  # st [taddr], imm, r (16x32bx2: the offset precedes the registers, as ptxas takes it)
        addr, regs, rest = ops[0], ops[2], ops[1:2]
    else:
        addr, regs, rest = ops[0], ops[1], ()
    imm = 0
    if shape == "16x32bx2":
        if len(rest) != 1 or rest[0][0] != "imm":
            raise d.error("16x32bx2 needs an immediate half-split offset")
        imm = rest[0][1]
    elif rest:
        raise d.error("unexpected extra operand")
    rl = regs[1] if regs[0] == "vec" else [regs]
    if len(rl) != nregs:
        raise d.error(f".{shape}.x{num} needs {nregs} registers, got {len(rl)}")
    rows, cols = thread_map(shape, nregs, imm)
    ta, _ = d.addr_expr(addr)
    fa = d.compile([f"return {ta}"])
    return shape, num, nregs, pack, rl, np.array(rows), np.array(cols), fa


def _region(M, w, parts, fa, rows, cols, pack, line, what):
    a = _uniform(parts, fa, f"{what} taddr")
    L, C = (a >> 16) & 0xFFFF, a & 0xFFFF
    q = w.rank
    if L // 32 != q:
        M.warn(f"line {line}: {what} taddr lane field {L} is not inside warp {w.idx}'s lane quarter "
               f"{32 * q}..{32 * q + 31} (warp rank {q} in its warpgroup); accepted as relative "
               f"lane {L % 32} of that quarter (hardware behaviour inferred, "
               f"docs/emulator.md A13)", key=("lanefield", line, w.cta.idx, w.idx))
    base = 32 * q + (L % 32)
    R = base + rows
    if R.max() >= 32 * q + 32:
        raise EmulationError(f"{what} at lane offset {L % 32} touches lane {int(R.max())}, outside "
                             f"warp rank {q}'s lanes {32 * q}..{32 * q + 31} (a warp may access only "
                             f"its own lane quarter)")
    if pack:
        Cc = C + np.stack([2 * cols, 2 * cols + 1], axis=-1)
        Rr = np.broadcast_to(R[..., None], Cc.shape)
    else:
        Cc, Rr = C + cols, R
    if Cc.max() >= mem.TMEM_COLS:
        raise EmulationError(f"{what} column {int(Cc.max())} is outside TMEM's 512 columns")
    tm = w.cta.tmem
    own = tm.owner[Cc]
    if (own < 0).any():
        bad = int(Cc[own < 0].min())
        raise EmulationError(f"{what} accesses unallocated TMEM column {bad} "
                             f"({tm.check_cols(bad, bad + 1)})")
    return Rr, Cc


def _check_cp_race(M, w, parts, Rr, Cc, line):
    tm = w.cta.tmem
    ids = np.unique(tm.src[Rr, Cc])
    for rid in ids:
        if rid == 0:
            continue
        rec = KERNEL.of(M).records[int(rid)]
        if not rec.retired:
            M.violation(f"tcgen05.ld reads TMEM being written by the {rec.opcode} at line "
                        f"{rec.line}, which has not been committed and waited for (needs "
                        f"tcgen05.commit -> mbarrier wait -> tcgen05.fence::after_thread_sync)",
                        key=("ldrace", line, rec.line), race=True)
            continue
        if rec.forced:
            continue
        for t in parts:
            synced = THREAD.of(t).synced
            if not any(synced.get(mb.uid, -1) > n for mb, n in completions(rec)):
                findings.report(  # the rule NVIDIA's CuTe DSL kernels break (findings.py)
                    M, "tcgen05.fence::after_thread_sync",
                    f"tcgen05.ld by lane {t.lane} reads TMEM written by the {rec.opcode} at line "
                    f"{rec.line} without a successful mbarrier wait on its commit's phase followed "
                    f"by tcgen05.fence::after_thread_sync in this thread (docs/tcgen05.md §10)",
                    line=line)
                break


def decode_ld(d, inst):
    shape, num, nregs, pack, rl, rows, cols, fa = _ldst_decode(d, inst, True)
    slots = [None if o[0] == "sink" else d.slot(o) for o in rl]
    M = d.M
    line = inst.line

    def f(w, parts):
        Rr, Cc = _region(M, w, parts, fa, rows, cols, pack, line, "tcgen05.ld")
        tm = w.cta.tmem
        _check_cp_race(M, w, parts, Rr, Cc, line)
        if not tm.written[Rr, Cc].all():
            M.warn(f"line {line}: tcgen05.ld in CTA {w.cta.idx} warp {w.idx} reads TMEM cells "
                   f"that were never written (poison 0x{mem.POISON:08X})",
                   key=("poison", line, w.cta.idx, w.idx))
        vals = tm.cells[Rr, Cc].astype(np.int64)
        if pack:
            M.warn(f"line {line}: .pack::16b bit placement assumed (lower column -> low 16 bits); "
                   f"PTX shows it only in a figure", key=("pack", line))
            vals = (vals[..., 0] & 0xFFFF) | ((vals[..., 1] & 0xFFFF) << 16)
        for t in parts:  # unreadable until tcgen05.wait::ld (ld_poison.py)
            ld_poison.poison_ld(M, t, slots, vals[t.lane].tolist(), line)
            THREAD.of(t).ld_pending = True
    return f, None


def decode_st(d, inst):
    shape, num, nregs, pack, rl, rows, cols, fa = _ldst_decode(d, inst, False)
    getters = [d.compile([f"return {d.src(o, 32)}"]) for o in rl]
    M = d.M
    line = inst.line

    def f(w, parts):
        Rr, Cc = _region(M, w, parts, fa, rows, cols, pack, line, "tcgen05.st")
        tm = w.cta.tmem
        vals = np.zeros((32, nregs), dtype=np.int64)
        for t in parts:
            vals[t.lane] = [g(t) for g in getters]
        lanes = [t.lane for t in parts]
        if pack:
            M.warn(f"line {line}: .unpack::16b bit placement assumed (low 16 bits -> lower "
                   f"column, upper 16 bits of each cell zero); PTX shows it only in a figure",
                   key=("unpack", line))
            v2 = np.stack([vals & 0xFFFF, (vals >> 16) & 0xFFFF], axis=-1)
            Rs, Cs, Vs = Rr[lanes], Cc[lanes], v2[lanes]
        else:
            Rs, Cs, Vs = Rr[lanes], Cc[lanes], vals[lanes]
        tm.cells[Rs, Cs] = Vs.astype(np.uint32)
        tm.written[Rs, Cs] = True
        tm.src[Rs, Cs] = 0
        M.progress += 1
    return f, None


def decode_wait(d, inst):
    if inst.parts[1] == "wait::st":  # tcgen05.st writes TMEM at issue: nothing is left to wait for
        return (lambda w, parts: None), None

    def f(w, parts):
        for t in parts:
            THREAD.of(t).ld_pending = False
            ld_poison.land_ld(t)
    return f, None


def decode_fence(d, inst):
    kind = inst.parts[1]
    if kind == "fence::after_thread_sync":
        return d.compile(["_state(t).synced = dict(t.seen)"], {"_state": THREAD.of})
    if kind == "fence::before_thread_sync":
        return d.compile([])
    raise d.error(f"unknown tcgen05 fence .{kind}")


def decode_unsupported(d, inst):
    raise d.error(f"`{inst.opcode}` is not emulated by tile-sim (tcgen05.mma/shift semantics are "
                  "out of scope; refusing to guess)")
