"""One launch's Machine, built once and reset before each schedule that runs it.

Exploration runs the same launch hundreds of times.  Building its Machine decodes every
instruction into closures and lays out its memory (about a fifth of a small kernel's schedule); a
schedule changes none of that, only the machine's run state and the bytes of global memory.  So the
Machine is built once per process (per chunk of schedules) and, before each run, given back the
bytes its global allocations held after the build, its parameter buffer, empty per-run state, and
the arrays of the schedule's own copy of the arguments (which ``copy_back`` fills).  A launch whose
build left family state on the machine, or bound multicast objects, is rebuilt every time instead
(``Launch.reusable``).  test/python/sim/test_explore_reuse.py checks that a reused machine gives
the same verdict, report and bytes as a fresh one, schedule for schedule.
"""

from __future__ import annotations

import copy

from ..build import build_machine


class Launch:
    """``machine(args, args_copy, memo)``: the launch's Machine bound to ``args_copy``, a deep copy
    of ``args`` made with ``memo`` (``copy.deepcopy(args, memo)``); reused when ``args`` is the
    list the Launch was made from (its arrays are found in ``memo`` by their identity)."""

    def __init__(self, ptx, kernel, args, kw):
        self.ptx, self.kernel, self.kw, self.args = ptx, kernel, kw, args
        memo: dict = {}
        own = copy.deepcopy(args, memo)
        self.m = m = build_machine(ptx, kernel, own, **kw)
        # the original object behind each copy the machine bound (by id of the copy)
        orig = {id(v): k for k, v in memo.items() if k != id(memo)}
        self.bound = [(orig.get(id(a)), base) for a, base in m.bound_arrays]
        self.reusable = not m.ext and all(k is not None for k, _ in self.bound) \
            and not getattr(m, "multicast", None)
        g = m.gmem
        self.allocs = [(a, bytes(a.buf)) for a in g.allocs]
        self.next = g.next
        self.param = bytes(m.param_buf)
        self.used = False

    def machine(self, args, a, memo):
        """The machine for one run over ``a`` (a fresh build when it cannot be reused)."""
        if args is not self.args:
            return build_machine(self.ptx, self.kernel, a, **self.kw)
        if not self.used:
            self.used = True  # as built: nothing to reset, but the arrays are this run's
        elif not self.reusable:
            return build_machine(self.ptx, self.kernel, a, **self.kw)
        else:
            self._reset()
        m = self.m
        m.bound_arrays = [(memo[k], base) for k, base in self.bound]
        return m

    def _reset(self):
        m, g = self.m, self.m.gmem
        n = len(self.allocs)
        del g.allocs[n:], g.bases[n:]
        for a, data in self.allocs:
            a.buf[:] = data
        g.next = self.next
        m.param_buf[:] = self.param
        m.steps = m.progress = m.syncs = 0
        m.warnings, m.warn_keys, m.findings = [], [], []
        m._warned = set()
        m.ext = {}
        m.kept, m._by_gid = {}, {}
        m.cur = m._spin = None
        m.schedule = ""
        m.policy = m._sync_stop = None  # (run() sets the stops again under a policy)
