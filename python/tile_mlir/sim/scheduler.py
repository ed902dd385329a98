"""The scheduler of tile-sim's machine: makes each cluster's threads, runs its warps round-robin
and reports deadlocks, convergence errors and runs past their budget (docs/emulator.md §3).

Execution model
---------------
---------------
* Threads are grouped in warps of 32 by linear thread id (x + y*ntid.x + z*ntid.x*ntid.y); the
  warp rank within its warpgroup, used for TMEM lane quarters, is (tid // 32) % 4.
* Each thread has its own program counter (independent thread scheduling).  Within a warp the
  scheduler repeatedly picks the lowest PC among runnable lanes and executes that instruction for
  every runnable lane at that PC ("min-PC" reconvergence).  Warps run round-robin in slices of
  ``SLICE`` warp-instructions, all CTAs of one cluster together; clusters run one after another.
* Warp-collective (``.sync``/``.aligned``) instructions execute only when every required lane of
  the warp is at that same instruction; lanes that arrive early park there.  If the warp can make
  no further progress with lanes parked at different instructions, or a required lane has exited,
  EmulationError names the lanes and where they are.
* ``mbarrier.try_wait``/``test_wait`` that would return false park the thread on the barrier
  (a legal schedule: the thread was simply not scheduled until the phase completed).  When no
  thread at all can run, parked waiters are released once with result false (try_wait's time
  limit); if that changes nothing either, the kernel is deadlocked and EmulationError reports the
  position of every warp, at the instruction that blocks it.
* A budget of warp-instructions and one of wall-clock seconds bound everything else: past either,
  EmulationError reports where each warp spins and how long ago a thread last stored, arrived or
  exited.  The launch is checked first against the kernel's directives and tile-sim's caps
"""

from __future__ import annotations

import sys
import time

import numpy as np

from . import lane_runs, lane_vec
from .errors import EmulationError
from .locations import after_source, located_error
from .state import BLOCKED_AFTER, CTA, STATE_NAMES, Cluster, State, Thread, Warp
from .memory import TensorMemory

SLICE = 64


class Scheduler:
    """Mixin of :class:`~tile_mlir.sim.machine.Machine`: needs ``code``, ``dec``, ``hooks`` and the
    launch geometry; keeps ``steps`` and ``progress``.

    ``policy``: None runs the fixed schedule described above; a schedule policy
    (sim/explore/policy.py) instead chooses which warp runs next, ends slices after
    synchronisation operations and holds asynchronous completions in flight until it delivers
    them (docs/emulator.md, schedule exploration)."""

    policy = None
    _sync_stop = None  # per pc: True where a policy ends the slice (a synchronisation operation)
    syncs = 0  # synchronisation operations executed, under a policy

    def positions(self, ctas) -> str:
        out = []
        for c in ctas:
            for w in c.warps:
                groups: dict = {}
                for t in w.threads:
                    pc = t.pc - 1 if t.state in BLOCKED_AFTER else t.pc
                    groups.setdefault((pc, t.state), []).append(t.lane)
                for (pc, st), lanes in sorted(groups.items()):
                    if st == State.EXITED:
                        pos = "exited"
                    elif pc < len(self.code):
                        i = self.code[pc]
                        pos = f"line {i.line} `{i.text}`: {STATE_NAMES[st]}"
                        if i.loc is not None:
                            pos = f"{i.loc}: {after_source(pos)}"
                        t0 = w.threads[lanes[0]]
                        if st == State.MBAR and t0.wait_on is not None:
                            pos += f" on {t0.wait_on[0].describe()}"
                    else:
                        pos = "past the end of the kernel"
                    out.append(f"  CTA {c.idx} warp {w.idx} lanes {_ranges(lanes)}: {pos}")
        return "\n".join(out)

    # ------------------------------------------------------------------ run
    def nclusters(self) -> int:
        gx, gy, gz = self.grid
        cx, cy, cz = self.cluster_dims
        return (gx // cx) * (gy // cy) * (gz // cz)

    def run(self, clusters=None, done=None):
        """Run the clusters of linear index in ``clusters`` (default: all), one after another, in
        order; keep in ``self.kept`` of each CTA what a SimResult reports; ``done(steps)`` after
        each cluster (progress)."""
        gx, gy, gz = self.grid
        cx, cy, cz = self.cluster_dims
        nx, ny = gx // cx, gy // cy
        ncl = self.nclusters()
        self._run_len = lane_runs.lengths(self.code) if lane_runs.ENABLED else [0] * len(self.code)
        if self.policy is not None:
            self._sync_stop = self.policy.sync_flags(self.code)
            self._run_len = _cut_runs(self._run_len, self._sync_stop)
        if len(getattr(self, "_lane_loops", ())) != len(self.code):  # a machine run again keeps
            self._lane_loops = [None] * len(self.code)  # them (explore/reuse.py); built on first use (lane_runs.py)
        # stretches of lane runs executed as vectors over the lanes (lane_vec.py): from this run's cut of the runs
        self._vec_len = (_vec_lengths(self) if lane_runs.ENABLED and lane_vec.ENABLED else None)
        self._vec_plans = {}
        self._ahead = {}  # warp -> (stop, lanes) of a vector stretch computed ahead (lane_runs.py)
        self.deadline = (time.monotonic() + self.max_seconds) if self.max_seconds else float("inf")
        self.last_progress = (self.progress, 0)  # (progress value, step count when it changed)
        self.kept = {}  # CTA index -> (tensor memory snapshot, shared memory bytes)
        # clusters not yet launched that clusterlaunchcontrol.try_cancel cancelled (handlers/clc.py)
        self.cancelled = set()
        self.running_cluster = None
        self._run_clusters(clusters, ncl, nx, ny, done)

    def _run_clusters(self, clusters, ncl, nx, ny, done):
        gx, gy, gz = self.grid
        cx, cy, cz = self.cluster_dims
        for lin in (range(ncl) if clusters is None else clusters):
            clx, cly, clz = lin % nx, (lin // nx) % ny, lin // (nx * ny)
            if lin in self.cancelled:  # never launched: its CTAs report what a fresh CTA holds
                self._keep_unlaunched(clx, cly, clz)
                continue
            self.running_cluster = lin
            cl = Cluster(lin)
            for k in range(cz):
                for j in range(cy):
                    for i in range(cx):
                        x, y, z = clx * cx + i, cly * cy + j, clz * cz + k
                        idx = x + y * gx + z * gx * gy
                        rank = i + j * cx + k * cx * cy
                        cl.ctas.append(CTA(idx, (x, y, z), rank, cl, self.smem_size))
            self._make_threads(cl, (clx, cly, clz), ncl)
            self._run_cluster(cl)
            for c in cl.ctas:  # the rest of the cluster's state goes with it
                self.kept[c.idx] = (c.tmem_snapshot(), c.smem.np)
            _release(cl)
            if done is not None:
                done(self.steps)

    def _keep_unlaunched(self, clx, cly, clz):
        gx, gy, _ = self.grid
        cx, cy, cz = self.cluster_dims
        for k in range(cz):
            for j in range(cy):
                for i in range(cx):
                    idx = (clx * cx + i) + (cly * cy + j) * gx + (clz * cz + k) * gx * gy
                    self.kept[idx] = (TensorMemory.UNUSED, np.zeros(self.smem_size, np.uint8))

    def _make_threads(self, cl, clid, ncl):
        bx, by, bz = self.block
        n = self.nthreads
        dec = self.dec
        special = dec.special_slots()
        self._by_gid = {}
        gx, gy, gz = self.grid
        cx, cy, cz = self.cluster_dims
        explicit = 1 if self.cluster_dims != (1, 1, 1) else 0
        for c in cl.ctas:
            nw = (n + 31) // 32
            for wi in range(nw):
                w = Warp(c, wi)
                c.warps.append(w)
            for lin in range(n):
                t = Thread(dec.nslots, lin, c.warps[lin // 32], c, c.idx * n + lin)
                r = t.r
                vals = {
                    "%tid.x": lin % bx, "%tid.y": (lin // bx) % by, "%tid.z": lin // (bx * by),
                    "%ntid.x": bx, "%ntid.y": by, "%ntid.z": bz,
                    "%ctaid.x": c.ctaid[0], "%ctaid.y": c.ctaid[1], "%ctaid.z": c.ctaid[2],
                    "%nctaid.x": gx, "%nctaid.y": gy, "%nctaid.z": gz,
                    "%clusterid.x": clid[0], "%clusterid.y": clid[1], "%clusterid.z": clid[2],
                    "%nclusterid.x": gx // cx, "%nclusterid.y": gy // cy,
                    "%nclusterid.z": gz // cz,
                    "%cluster_ctaid.x": c.ctaid[0] % cx, "%cluster_ctaid.y": c.ctaid[1] % cy,
                    "%cluster_ctaid.z": c.ctaid[2] % cz, "%cluster_nctaid.x": cx,
                    "%cluster_nctaid.y": cy, "%cluster_nctaid.z": cz,
                    "%laneid": lin % 32, "%warpid": lin // 32, "%nwarpid": nw,
                    "%cluster_ctarank": c.rank, "%cluster_nctarank": cx * cy * cz,
                    "%dynamic_smem_size": self.dynamic_smem, "%total_smem_size": self.smem_size,
                    "%aggr_smem_size": self.smem_size, "%smid": c.idx, "%nsmid": 148,
                    "%gridid": 0, "%is_explicit_cluster": explicit,
                    "%lanemask_eq": 1 << t.lane, "%lanemask_le": (2 << t.lane) - 1,
                    "%lanemask_lt": (1 << t.lane) - 1,
                    "%lanemask_ge": (0xFFFFFFFF << t.lane) & 0xFFFFFFFF,
                    "%lanemask_gt": (0xFFFFFFFE << t.lane) & 0xFFFFFFFF,
                }
                for k, s in special.items():
                    if k in vals:
                        r[s] = vals[k]
                if self.local_size:
                    t.local = bytearray(self.local_size)
                self._by_gid[t.gid] = t
                t.warp.threads.append(t)
                c.threads.append(t)
            for w in c.warps:
                w.lanes = frozenset(t.lane for t in w.threads)
            c.live = n

    def complete_async(self, land, what: str, line, t=None):
        """An asynchronous operation's completion (its bytes landing, then its mbarrier signal):
        at once without a policy, else held in flight until the policy delivers it."""
        if self.policy is None:
            land()
        else:
            self.policy.issue(self, land, what, line, t)

    def _run_cluster(self, cl):
        if self.policy is not None:
            self.policy.run_cluster(self, cl)
            self._cluster_done(cl.ctas)
            return
        warps = [w for c in cl.ctas for w in c.warps]
        ctas = cl.ctas
        while True:
            executed = 0
            for w in warps:
                executed += self._run_warp(w, SLICE)
                self.check_budget(cl)
            if self.progress != self.last_progress[0]:
                self.last_progress = (self.progress, self.steps)
            if all(c.live == 0 for c in ctas):
                break
            if executed:
                continue
            self.stalled(ctas)
        self._cluster_done(ctas)

    def check_budget(self, cl):
        if self.steps > self.max_steps:
            raise self._over_budget(
                f"step budget of {self.max_steps} warp-instructions exceeded", cl)
        if time.monotonic() > self.deadline:
            raise self._over_budget(
                f"time budget of {self.max_seconds:g} s exceeded after {self.steps} "
                f"warp-instructions", cl)

    def stalled(self, ctas):
        """Nothing could run: time out parked mbarrier waiters once per progress value, or report
        the deadlock."""
        woke = False
        for c in ctas:
            for t in c.threads:
                if t.state == State.MBAR and t.timeout_at != self.progress:
                    t.timeout_at = self.progress
                    t.timeout = True
                    t.state = State.RUN
                    woke = True
        if not woke:
            msg = "deadlock: no thread can make progress; positions:\n" + self.positions(ctas)
            blocked = [t for c in ctas for t in c.threads if t.state != State.EXITED]
            at = self.code[blocked[0].pc - (blocked[0].state in BLOCKED_AFTER)] \
                if blocked and blocked[0].pc < len(self.code) else None
            if at is not None and at.loc is not None:  # the first blocked warp's source
                raise EmulationError(f"{at.loc}: error: {msg}", source=at.loc)
            raise EmulationError(msg)

    def _cluster_done(self, ctas):
        self.cur = None
        for c in ctas:
            for f in self.hooks.cta_done:
                f(self, c)

    def _run_warp(self, w, budget):
        code = self.code
        threads = w.threads
        ncode = len(code)
        n = 0
        BIG = 1 << 60
        RUN = State.RUN
        trace = self.trace or self._spin is not None
        ahead = self._ahead
        run_len = self._run_len
        stop = self._sync_stop
        while n < budget:
            minpc = BIG
            for t in threads:
                if t.state == RUN and t.pc < minpc:
                    minpc = t.pc
            if minpc == BIG:
                if any(t.state == State.COLL for t in threads):
                    self._check_convergence(w)
                break
            if minpc >= ncode:
                t = next(t for t in threads if t.state == RUN and t.pc == minpc)
                raise EmulationError(f"execution ran past the last instruction without ret/exit "
                                     f"({self.where(t)})")
            inst = code[minpc]
            self.cur = inst
            n += 1
            if trace:
                self._trace_step(w, minpc, inst)
            if inst.warp:
                self._exec_warp(w, inst, minpc)
                if stop is not None and stop[minpc]:
                    self.syncs += 1
                    break
                continue
            if run_len[minpc] > 1 and not trace:
                # a lane run: the lanes at minpc through straight-line instructions until another
                # runnable lane of the warp or the slice's end (lane_runs.py)
                lanes, other = [], BIG
                for t in threads:
                    if t.state == RUN:
                        p = t.pc
                        if p == minpc:
                            lanes.append(t)
                        elif p < other:
                            other = p
                span = min(run_len[minpc], other - minpc)
                k = min(span, budget - n + 1)
                if k > 1:
                    n += k - 1
                    lane_runs.run(self, lanes, minpc, k, span, w)
                    continue
            if ahead and w in ahead:  # (lanes that computed it ahead pass it: lane_runs.py)
                lane_runs.step_ahead(self, w, threads, minpc, inst)
            else:
                fn = inst.fn
                nxt = minpc + 1
                g = inst.guard
                t = None
                try:
                    if g is None:
                        for t in threads:
                            if t.state == RUN and t.pc == minpc:
                                t.pc = nxt
                                fn(t)
                    else:
                        s, neg = g
                        for t in threads:
                            if t.state == RUN and t.pc == minpc:
                                t.pc = nxt
                                if (t.r[s] != 0) != neg:
                                    fn(t)
                except EmulationError as e:
                    raise self._locate(e, inst, t) from None
            if stop is not None and stop[minpc]:
                self.syncs += 1
                break
        self.steps += n
        return n

    def _trace_step(self, w, pc, inst):
        if self._spin is not None:
            self._spin.setdefault(w, set()).add(pc)
        if self.trace:
            lanes = [t.lane for t in w.threads if t.state == State.RUN and t.pc == pc]
            print(f"[tile-sim] CTA {w.cta.idx} warp {w.idx} lanes {_ranges(lanes)} "
                  f"line {inst.line}: {inst.text}", file=sys.stderr)

    def _over_budget(self, what: str, cl) -> EmulationError:
        """The error of a run past its budget: where each warp spins (the lines it runs in one
        more slice), how long no thread stored, arrived or exited, and every warp's position."""
        since = self.steps - self.last_progress[1]
        self._spin = {}
        try:
            for c in cl.ctas:
                for w in c.warps:
                    self._run_warp(w, SLICE)
        except EmulationError:
            pass  # the probe only looks: what it ran into is past the budget
        spin, self._spin = self._spin, None
        loops = []
        for w, pcs in spin.items():
            lines = sorted({self.code[pc].line for pc in pcs})
            first, last = self.code[min(pcs)], self.code[max(pcs)]
            loops.append(f"  CTA {w.cta.idx} warp {w.idx}: lines {_ranges(lines)} "
                         f"(`{first.text}` .. `{last.text}`)")
        quiet = (f"no thread stored, arrived or exited in the last {since} warp-instructions; "
                 if since else "")
        at = next((self.code[min(pcs)] for pcs in spin.values()), None)
        if at is not None and at.loc is not None:  # the first spinning warp's source
            what = f"{at.loc}: error: {what}"
        return EmulationError(
            f"{what} (a livelock, or a kernel longer than the budget: pass max_steps= / "
            f"max_seconds=, tile-run --max-steps / --max-seconds, or TILE_MLIR_SIM_MAX_STEPS / "
            f"TILE_MLIR_SIM_MAX_SECONDS); {quiet}where the warps run:\n"
            + ("\n".join(loops) or "  nowhere") + "\npositions:\n" + self.positions(cl.ctas))

    def _exec_warp(self, w, inst, pc):
        threads = w.threads
        at = [t for t in threads if t.pc == pc and t.state in (State.RUN, State.COLL)]
        try:
            req = inst.req(w, at) if inst.req is not None else w.lanes
        except EmulationError as e:
            raise self._locate(e, inst, at[0]) from None
        have = {t.lane for t in at}
        if req <= have:
            parts = [t for t in at if t.lane in req]
            for t in at:
                t.state = State.RUN
            for t in parts:
                t.pc = pc + 1
            g = inst.guard
            if g is not None:
                s, neg = g
                vals = [(t.r[s] != 0) != neg for t in parts]
                if not any(vals):
                    return
                if not all(vals):
                    raise self._locate(EmulationError(
                        f"guard predicate of a warp-collective instruction differs across lanes "
                        f"(true in lanes {_ranges([t.lane for t, v in zip(parts, vals) if v])})"),
                        inst, parts[0])
            try:
                inst.fn(w, parts)
            except EmulationError as e:
                raise self._locate(e, inst, parts[0]) from None
            return
        missing = req - have
        gone = [l for l in missing if l not in w.lanes or threads[l].state == State.EXITED]
        if gone:
            raise self._locate(EmulationError(
                f"warp-collective instruction needs lanes {_ranges(sorted(missing))} of warp "
                f"{w.idx}, but lanes {_ranges(sorted(gone))} have exited or do not exist; "
                f"positions:\n" + self.positions([w.cta]) ), inst, at[0])
        for t in at:
            t.state = State.COLL
        if not any(t.state == State.RUN for t in threads):
            self._check_convergence(w)

    def _check_convergence(self, w):
        threads = w.threads
        if any(t.state not in (State.COLL, State.EXITED) for t in threads):
            return  # other lanes are blocked and may come later; the deadlock check reports it
        t0 = next(t for t in threads if t.state == State.COLL)
        inst = self.code[t0.pc]
        parked = {}
        for t in threads:
            if t.state == State.COLL:
                parked.setdefault(t.pc, []).append(t.lane)
        desc = "; ".join(f"lanes {_ranges(l)} at line {self.code[pc].line} `{self.code[pc].text}`"
                         for pc, l in sorted(parked.items()))
        exited = [t.lane for t in threads if t.state == State.EXITED]
        if exited:
            desc += f"; lanes {_ranges(exited)} exited"
        raise located_error(
            f"line {inst.line}: `{inst.text}`: convergence error in CTA {w.cta.idx} warp {w.idx}: "
            f"a .sync.aligned/warp-collective instruction must be executed by all required lanes "
            f"together, but {desc}", inst)


def _vec_lengths(M):
    """lane_vec.lengths of the machine's code, kept on the machine: a machine run again (a
    schedule of explore/reuse.py) has the same code and decoder, so the same forms."""
    kept = getattr(M, "_vec_kept", None)
    if kept is None or kept[0] is not M.code:
        kept = M._vec_kept = (M.code, lane_vec.lengths(M, M.code), M._vec_forms)
    M._vec_forms = kept[2]
    return kept[1]


def _cut_runs(run_len, stop):
    """Lane runs that end before each synchronisation operation (a policy's slice ends right
    after one, so none may be inside a run)."""
    out = list(run_len)
    nxt = len(stop)
    for pc in range(len(stop) - 1, -1, -1):
        if stop[pc]:
            out[pc] = min(out[pc], 1)
            nxt = pc
        else:
            out[pc] = min(out[pc], nxt - pc)
    return out


def _release(cl):
    """Drop a finished cluster's registers, memories and family state. The families' machine-wide
    records of its asynchronous operations (looked up by ids that only its CTAs held) still name
    its threads, so without this every CTA of a long launch stayed alive, and Python's garbage
    collector, walking all of them again and again, made a CTA cost more the later it ran (a
    2048^3 GEMM's CTA 1.5x its first)."""
    for c in cl.ctas:
        for t in c.threads:
            t.r, t.ext, t.seen, t.local, t.wait_on = [], {}, {}, None, None
        for w in c.warps:
            w.threads = []
        c.threads, c.warps, c.ext, c._tmem, c.smem = [], [], {}, None, None
    cl.ext = {}


def _ranges(lanes) -> str:
    lanes = sorted(lanes)
    if not lanes:
        return "none"
    out = []
    s = p = lanes[0]
    for x in lanes[1:]:
        if x == p + 1:
            p = x
            continue
        out.append(f"{s}" if s == p else f"{s}-{p}")
        s = p = x
    out.append(f"{s}" if s == p else f"{s}-{p}")
    return ",".join(out)
