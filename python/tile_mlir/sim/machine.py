"""The machine of tile-sim: lays out a kernel's memory and binds its arguments (binding.py),
decodes its instructions (opcodes.py) and runs its CTAs (scheduler.py).  The state it runs is in
state.py; what instructions do is in handlers/.  Handlers reach the machine through the methods
here: diagnostics (warn, violation, where), thread exit and the address spaces."""

from __future__ import annotations

from .. import env as _env
from . import contract, findings, launch
from . import memory as mem
from .binding import MemoryBinding
from .codegen import Decoder
from .errors import EmulationError
from .handlers import calls, ld_poison
from .locations import after_source, located_error
from .memory import GlobalMemory
from .opcodes import decode_all
from .scheduler import Scheduler
from .state import DInst, Hooks, State


class Machine(MemoryBinding, Scheduler):
    def __init__(self, module, fn, *, grid, block, cluster, dynamic_smem, strict, trace,
                 max_steps, max_seconds=None, args=(), device=None):
        launch.check_launch(fn, grid, block, cluster)
        if dynamic_smem < 0:
            raise EmulationError(f"dynamic shared memory of {dynamic_smem} bytes")
        self.module = module
        self.fn = fn
        self.device = device or module.target  # the GPU emulated (launch.device_of)
        self.grid = grid
        self.block = block
        self.cluster_dims = cluster
        self.dynamic_smem = dynamic_smem
        self.strict = strict
        self.trace = trace or bool(_env.get("TILE_MLIR_SIM_TRACE"))
        self.max_steps = max_steps  # None: the launch's default, once the code is decoded
        self.max_seconds = max_seconds  # None: no limit
        self.steps = 0
        self.progress = 0
        self.warnings: list[str] = []
        self.findings: list = []  # sim/findings.py: ISA rules broken, in lenient mode
        # an explored schedule's: the (rule, line) findings of the default schedule, which it is
        # compared with (explore/driver.py); a rule already found there need not be found again
        self.known_findings: frozenset | None = None
        self._warned: set = set()
        self.warn_keys: list = []
        self.cur = None  # the instruction executing (its .loc names warnings)
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
        self.callees = calls.callees(fn)  # device functions: frames after the entry's locals
        self.local_size = calls.layout(self, fn, self.callees, self.local_size)
        if self.local_size > launch.MAX_LOCAL_PER_THREAD:
            raise EmulationError(f"local memory of {self.local_size} bytes per thread exceeds the "
                                 f"{launch.MAX_LOCAL_PER_THREAD}-byte limit")
        self._check_memory(args, slots=0, tmem=False)  # before global variables take memory
        self._layout_globals()
        self.dec = Decoder(self, fn, self.symbols)
        self._place_callees(len(fn.instructions))
        self.fmad = _env.flag("TILE_MLIR_SIM_FMAD")
        self.dec.fused, self.dec.dead_muls = contract.plan(fn.instructions) if self.fmad else ({}, set())
        self.code = decode_all(self.dec, fn.instructions)
        self._decode_callees()
        # tcgen05.ld may write plain values when nothing can read them before their wait
        self.ld_plain = ld_poison.STATIC and any(i.mnemonic == "tcgen05.ld" for i in self.code) \
            and ld_poison.never_read_unwaited(self.code)
        self._check_memory(args, slots=self.dec.nslots,
                           tmem=any(i.mnemonic.startswith("tcgen05") for i in self.code))
        if self.max_steps is None:
            self.max_steps = launch.default_max_steps(
                grid[0] * grid[1] * grid[2], (self.nthreads + 31) // 32, len(self.code))
        self.schedule = ""  # how the clusters ran (pool.py)
        self.kept: dict = {}  # CTA index -> (tensor memory, shared memory), after run()
        self._by_gid: dict = {}  # the threads of the cluster running
        self._spin = None  # warp -> pcs executed, while a budget report probes the warps

    def _place_callees(self, base):
        """``func_base``: where each device function's code starts, after the entry's."""
        self.func_base, self.func_slots = {}, {}
        for f in self.callees:
            self.func_base[f] = base
            base += len(f.instructions)

    def _decode_callees(self):
        """The device functions' code after the entry's (handlers/calls.py); ``func_slots``: the
        register slots each one's decoding made."""
        for f in self.callees:
            self.dec.pc_base = self.func_base[f]
            first = self.dec.nslots
            self.dec.fused, self.dec.dead_muls = contract.plan(f.instructions) if self.fmad else ({}, set())
            self.code += decode_all(self.dec, f.instructions)
            self.func_slots[f] = (first, self.dec.nslots)
        self.dec.pc_base = 0

    def thread_by_gid(self, gid):
        return self._by_gid[gid]

    # ------------------------------------------------------------------ diagnostics
    def warn(self, msg: str, key=None):
        k = key if key is not None else msg
        if k in self._warned:
            return
        self._warned.add(k)
        i = self.cur
        if i is not None and i.loc is not None:  # MLIR's form, the PTX line kept
            msg = f"{i.loc}: warning: {after_source(msg)}" + ("" if msg.startswith("line ") else
                                                f" (PTX line {i.line}: `{i.text}`)")
        self.warnings.append(msg)
        self.warn_keys.append(k)  # a worker's warnings merge by key (pool.py)

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
        return located_error(f"{loc}: {e.message}", inst)

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
        return mem.resolve_shared(t.cta, addr, space)

    def classify_generic(self, addr: int) -> str:
        if mem.SHARED_WINDOW <= addr < mem.SHARED_WINDOW + mem.SHARED_WINDOW_SIZE:
            return "generic_shared"
        if mem.LOCAL_WINDOW <= addr < mem.LOCAL_WINDOW + mem.LOCAL_WINDOW_SIZE:
            return "local"
        if mem.PARAM_WINDOW <= addr < mem.PARAM_WINDOW + mem.PARAM_WINDOW_SIZE:
            return "param"
        return "global"
