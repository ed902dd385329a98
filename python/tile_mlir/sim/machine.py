"""The machine of tile-sim: lays out a kernel's memory, decodes its instructions (opcodes.py), binds
its arguments and runs its CTAs with the deterministic scheduler below.  The state it runs is in
state.py; what instructions do is in handlers/.

Execution model
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
  (launch.py), so that no input takes unbounded memory.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from . import findings, launch
from . import memory as mem
from .codegen import Decoder, f32_to_bits, f64_to_bits
from .errors import EmulationError
from .memory import GlobalMemory
from .opcodes import decode_instruction
from .state import BLOCKED_AFTER, CTA, STATE_NAMES, Cluster, DInst, Hooks, State, Thread, Warp
from .tensor_map import TENSOR_MAP_BYTES, TensorMap

SLICE = 64


class Machine:
    def __init__(self, module, fn, *, grid, block, cluster, dynamic_smem, strict, trace,
                 max_steps, max_seconds=None, args=()):
        launch.check_launch(fn, grid, block, cluster)
        if dynamic_smem < 0:
            raise EmulationError(f"dynamic shared memory of {dynamic_smem} bytes")
        self.module = module
        self.fn = fn
        self.grid = grid
        self.block = block
        self.cluster_dims = cluster
        self.dynamic_smem = dynamic_smem
        self.strict = strict
        self.trace = trace or bool(os.environ.get("TILE_EMU_TRACE"))
        self.max_steps = max_steps
        self.max_seconds = launch.max_seconds_default() if max_seconds is None else max_seconds
        self.steps = 0
        self.progress = 0
        self.warnings: list[str] = []
        self.findings: list = []  # sim/findings.py: ISA rules broken, in lenient mode
        self._warned: set = set()
        self.gmem = GlobalMemory()
        self.hooks = Hooks()  # filled by the handler families as their instructions are decoded
        self.ext = {}  # the families' machine-wide state (state.Kept)
        self.nthreads = block[0] * block[1] * block[2]
        if "maxnreg" in fn.directives:
            self.warn(f".maxnreg {fn.directives['maxnreg'][0]} of {fn.name} has no effect on "
                      f"tile-sim: its registers are virtual, one slot per PTX register")
        self.symbols = {}  # VarDecl | Param -> (space, value)
        self._layout_shared()
        self._layout_params()
        self._layout_local()
        self._check_memory(args, slots=0, tmem=False)  # before global variables take memory
        self._layout_globals()
        self.dec = Decoder(self, fn, self.symbols)
        self.code = [decode_instruction(self.dec, i) for i in fn.instructions]
        self._check_memory(args, slots=self.dec.nslots,
                           tmem=any(i.mnemonic.startswith("tcgen05") for i in self.code))
        self.tmem_out: list = []  # per CTA, in CTA order, after run()
        self.shared_out: list = []
        self._by_gid: dict = {}  # the threads of the cluster running
        self._spin = None  # warp -> pcs executed, while a budget report probes the warps

    def thread_by_gid(self, gid):
        return self._by_gid[gid]

    # ------------------------------------------------------------------ layout
    def _layout_shared(self):
        off = 0
        dyn = []
        for v in list(self.module.vars) + list(self.fn.vars):
            if v.space != "shared":
                continue
            if v.extern:
                dyn.append(v)
                continue
            off = (off + v.align - 1) // v.align * v.align
            self.symbols[v] = ("shared", off)
            off += v.size
        self.static_smem = off
        dbase = (off + mem.DYN_SMEM_ALIGN - 1) // mem.DYN_SMEM_ALIGN * mem.DYN_SMEM_ALIGN
        for v in dyn:
            self.symbols[v] = ("shared", dbase)
        self.dyn_base = dbase
        self.smem_size = (dbase + self.dynamic_smem) if (dyn or self.dynamic_smem) else off
        if self.smem_size > launch.MAX_SMEM:
            raise EmulationError(f"shared memory of {self.smem_size} bytes exceeds the "
                                 f"{launch.MAX_SMEM}-byte limit per CTA")

    def _layout_params(self):
        off = 0
        self.param_layout = []
        for p in self.fn.params:
            off = (off + p.align - 1) // p.align * p.align
            self.symbols[p] = ("param", off)
            self.param_layout.append((p, off))
            off += p.size
        if off > launch.MAX_PARAM_BYTES:
            raise EmulationError(f"the parameters of {self.fn.name} take {off} bytes, more than "
                                 f"the {launch.MAX_PARAM_BYTES} a kernel may have")
        self.param_buf = bytearray(off)

    def _global_vars(self):
        return [v for v in self.module.vars + self.fn.vars if v.space in ("global", "const")]

    def _check_memory(self, args, *, slots, tmem):
        gbytes = sum(v.size for v in self._global_vars()) + sum(
            a.global_address.nbytes if isinstance(a, TensorMap) else getattr(a, "nbytes", 0)
            for a in args)
        cx, cy, cz = self.cluster_dims
        launch.check_memory(self.fn.name, ctas=self.grid[0] * self.grid[1] * self.grid[2],
                            cluster_ctas=cx * cy * cz, threads=self.nthreads, smem=self.smem_size,
                            slots=slots, local=self.local_size, global_bytes=gbytes, tmem=tmem)

    def _layout_globals(self):
        for v in self._global_vars():
            data = bytearray(v.size)
            if v.init:
                esz = max(1, int(v.type[1:]) // 8 if v.type[1:].isdigit() else 4)
                for k, op in enumerate(v.init):
                    val = op[1] if op[0] in ("imm", "fimm") else 0
                    data[k * esz:(k + 1) * esz] = (val & ((1 << (8 * esz)) - 1)).to_bytes(
                        esz, "little")
            base = self.gmem.alloc(v.size, f".{v.space} {v.name}", bytes(data),
                                   align=max(v.align, 16))
            self.symbols[v] = (v.space, base)

    def _layout_local(self):
        off = 0
        for v in self.fn.vars:
            if v.space != "local":
                continue
            off = (off + v.align - 1) // v.align * v.align
            self.symbols[v] = ("local", off)
            off += v.size
        if off > launch.MAX_LOCAL_PER_THREAD:
            raise EmulationError(f"local memory of {off} bytes per thread exceeds the "
                                 f"{launch.MAX_LOCAL_PER_THREAD}-byte limit")
        self.local_size = off

    # ------------------------------------------------------------------ arguments
    def bind_args(self, args):
        params = self.param_layout
        if len(args) != len(params):
            raise EmulationError(f"kernel {self.fn.name} has {len(params)} parameters "
                                 f"({[p.name for p, _ in params]}), got {len(args)} arguments")
        self.bound_arrays = []
        self.tensor_maps = {}  # .param offset -> (TensorMap, its globalAddress)
        maps = []
        for (p, off), a in zip(params, args):
            if isinstance(a, TensorMap):
                maps.append((p, off, a))
                continue
            if isinstance(a, np.ndarray):
                if p.size != 8:
                    raise EmulationError(f"numpy array bound to non-64-bit parameter {p.name}")
                if not a.flags.c_contiguous:
                    raise EmulationError(f"array for {p.name} must be C-contiguous")
                if a.dtype.hasobject:
                    raise EmulationError(f"array for {p.name} holds Python objects, not bytes")
                base = self.gmem.alloc(a.nbytes, f"global buffer for {p.name}",
                                       a.view(np.uint8).reshape(-1).tobytes())
                self.bound_arrays.append((a, base))
                val = base
            elif isinstance(a, (bool, int, np.integer)):
                val = int(a)
            elif isinstance(a, (float, np.floating)):
                if p.type == "f32":
                    val = f32_to_bits(float(a))
                elif p.type == "f64":
                    val = f64_to_bits(float(a))
                else:
                    raise EmulationError(f"float argument for non-float parameter {p.name}")
            else:
                raise EmulationError(f"unsupported argument type {type(a).__name__} for {p.name}")
            n = p.size
            self.param_buf[off:off + n] = (val & ((1 << (8 * n)) - 1)).to_bytes(n, "little")
        for p, off, tm in maps:
            self._bind_tensor_map(p, off, tm)

    def _bind_tensor_map(self, p, off, tm):
        """A TensorMap binds to a 128-byte .param object, kept by its offset (docs/emulator.md
        §9); its array is the allocation of the pointer argument that is the same object, else
        one of its own."""
        if p.size != TENSOR_MAP_BYTES or off % 64:
            raise EmulationError(f"a TensorMap binds to a `.param .align 64 .b8 {p.name}[128]`, "
                                 f"but {p.name} is {p.size} bytes at offset {off} (the driver "
                                 f"needs the 128-byte CUtensorMap 64-byte aligned)")
        a = tm.global_address
        base = next((b for arr, b in self.bound_arrays if arr is a), None)
        if base is None:
            base = self.gmem.alloc(a.nbytes, f"global buffer of the tensor map {p.name}",
                                   a.view(np.uint8).reshape(-1).tobytes())
            self.bound_arrays.append((a, base))
        if tm.offset > a.nbytes:
            raise EmulationError(f"TensorMap {p.name}: offset {tm.offset} is past the end of "
                                 f"its {a.nbytes}-byte array")
        self.tensor_maps[off] = (tm, base + tm.offset)
        tag = b"tile-sim tensor map (opaque)"
        self.param_buf[off:off + TENSOR_MAP_BYTES] = tag + bytes(TENSOR_MAP_BYTES - len(tag))

    def copy_back(self):
        for a, base in self.bound_arrays:
            buf, o = self.gmem.find(base, a.nbytes) if a.nbytes else (b"", 0)
            if a.nbytes:
                a.view(np.uint8).reshape(-1)[:] = np.frombuffer(bytes(buf[o:o + a.nbytes]),
                                                                dtype=np.uint8)

    # ------------------------------------------------------------------ diagnostics
    def warn(self, msg: str, key=None):
        k = key if key is not None else msg
        if k in self._warned:
            return
        self._warned.add(k)
        self.warnings.append(msg)

    def violation(self, msg: str, key=None, race: bool = False):
        """An ordering violation: an error in strict mode, a warning and a finding otherwise. A race
        (an access that overlaps an in-flight copy's bytes) is a fault in both modes."""
        if race:
            raise EmulationError(msg + " [a race: an error in lenient mode too]")
        if self.strict:
            raise EmulationError(msg + " [pass strict=False to downgrade to a warning]")
        self.warn(msg, key)
        findings.report(self, "ordering", msg, line=findings.line_in(msg))

    def where(self, t) -> str:
        c = t.cta
        return f"CTA {c.idx} (cluster rank {c.rank}), warp {t.warp.idx}, lane {t.lane}"

    def _locate(self, e: EmulationError, inst: DInst, t) -> EmulationError:
        if e.located:
            return e
        where = self.where(t) if t is not None else ""
        loc = f"line {inst.line}: `{inst.text}`" + (f" ({where})" if where else "")
        return EmulationError(f"{loc}: {e.message}", line=inst.line, located=True)

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
                        t0 = w.threads[lanes[0]]
                        if st == State.MBAR and t0.wait_on is not None:
                            pos += f" on {t0.wait_on[0].describe()}"
                    else:
                        pos = "past the end of the kernel"
                    out.append(f"  CTA {c.idx} warp {w.idx} lanes {_ranges(lanes)}: {pos}")
        return "\n".join(out)

    # ------------------------------------------------------------------ run
    def run(self):
        """Run every cluster, one after another; keep of each CTA what a SimResult reports."""
        gx, gy, gz = self.grid
        cx, cy, cz = self.cluster_dims
        ncl = (gx // cx) * (gy // cy) * (gz // cz)
        self.deadline = time.monotonic() + self.max_seconds
        self.last_progress = (self.progress, 0)  # (progress value, step count when it changed)
        kept = {}  # CTA index -> (tensor memory snapshot, shared memory bytes)
        for clz in range(gz // cz):
            for cly in range(gy // cy):
                for clx in range(gx // cx):
                    cl = Cluster(clx + cly * (gx // cx) + clz * (gx // cx) * (gy // cy))
                    for k in range(cz):
                        for j in range(cy):
                            for i in range(cx):
                                x, y, z = clx * cx + i, cly * cy + j, clz * cz + k
                                idx = x + y * gx + z * gx * gy
                                rank = i + j * cx + k * cx * cy
                                c = CTA(idx, (x, y, z), rank, cl, self.smem_size)
                                cl.ctas.append(c)
                    self._make_threads(cl, (clx, cly, clz), ncl)
                    self._run_cluster(cl)
                    for c in cl.ctas:  # the rest of the cluster's state goes with it
                        kept[c.idx] = (c.tmem_snapshot(), c.smem.np)
        self.tmem_out = [kept[i][0] for i in range(gx * gy * gz)]
        self.shared_out = [kept[i][1] for i in range(gx * gy * gz)]

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

    def _run_cluster(self, cl):
        warps = [w for c in cl.ctas for w in c.warps]
        ctas = cl.ctas
        while True:
            executed = 0
            for w in warps:
                executed += self._run_warp(w, SLICE)
                if self.steps > self.max_steps:
                    raise self._over_budget(
                        f"step budget of {self.max_steps} warp-instructions exceeded", cl)
                if time.monotonic() > self.deadline:
                    raise self._over_budget(
                        f"time budget of {self.max_seconds:g} s exceeded after {self.steps} "
                        f"warp-instructions", cl)
            if self.progress != self.last_progress[0]:
                self.last_progress = (self.progress, self.steps)
            if all(c.live == 0 for c in ctas):
                break
            if executed:
                continue
            # nothing could run: time out parked mbarrier waiters once per progress value
            woke = False
            for c in ctas:
                for t in c.threads:
                    if t.state == State.MBAR and t.timeout_at != self.progress:
                        t.timeout_at = self.progress
                        t.timeout = True
                        t.state = State.RUN
                        woke = True
            if not woke:
                raise EmulationError("deadlock: no thread can make progress; positions:\n"
                                     + self.positions(ctas))
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
            n += 1
            if trace:
                self._trace_step(w, minpc, inst)
            if inst.warp:
                self._exec_warp(w, inst, minpc)
                continue
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
        return EmulationError(
            f"{what} (a livelock, or a kernel longer than the budget: pass max_steps= / "
            f"max_seconds=, or set TILE_SIM_MAX_SECONDS); {quiet}where the warps run:\n"
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
        raise EmulationError(
            f"line {inst.line}: `{inst.text}`: convergence error in CTA {w.cta.idx} warp {w.idx}: "
            f"a .sync.aligned/warp-collective instruction must be executed by all required lanes "
            f"together, but {desc}", line=inst.line, located=True)

    # ------------------------------------------------------------------ thread lifecycle
    def exit_thread(self, t):
        t.state = State.EXITED
        t.cta.live -= 1
        self.progress += 1
        for f in self.hooks.thread_exit:
            f(self, t)

    # ------------------------------------------------------------------ address spaces
    def shared_target(self, t, addr: int, space: str):
        """Resolve a shared address to (cta, offset). space: 'shared' | 'cluster' | 'generic'."""
        if space == "generic":
            if not (mem.SHARED_WINDOW <= addr < mem.SHARED_WINDOW + mem.SHARED_WINDOW_SIZE):
                raise EmulationError(f"generic address 0x{addr:x} is not in the shared window")
            addr -= mem.SHARED_WINDOW
            space = "cluster"
        if space == "shared" or addr < (1 << mem.CLUSTER_SHIFT):
            return t.cta, addr
        rank = (addr >> mem.CLUSTER_SHIFT) - 1
        ctas = t.cta.cluster.ctas
        if not 0 <= rank < len(ctas):
            raise EmulationError(f".shared::cluster address 0x{addr:x} names CTA rank {rank}, "
                                 f"but the cluster has {len(ctas)} CTA(s)")
        return ctas[rank], addr & ((1 << mem.CLUSTER_SHIFT) - 1)

    def classify_generic(self, addr: int) -> str:
        if mem.SHARED_WINDOW <= addr < mem.SHARED_WINDOW + mem.SHARED_WINDOW_SIZE:
            return "generic_shared"
        if mem.LOCAL_WINDOW <= addr < mem.LOCAL_WINDOW + mem.LOCAL_WINDOW_SIZE:
            return "local"
        if mem.PARAM_WINDOW <= addr < mem.PARAM_WINDOW + mem.PARAM_WINDOW_SIZE:
            return "param"
        return "global"


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
