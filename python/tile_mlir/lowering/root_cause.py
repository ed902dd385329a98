"""When a dispatch pass fails, the failures of the dispatch passes after it are reported too, and all of
them in program order: a downstream symptom is then never the only message (a transposed tensor-memory
accumulator fails tile.copy_async's readback in tile-lower-copy-async, which runs first; its cause, the
tile.gemm_async whose D layout is not the MMA's, is an error of tile-lower-gemm-async, which never ran).

The later passes run on a clone of the module (what they would lower is thrown away) with the failing
pass's options; they are the dispatch stage's passes after it (stages.py) whose classes the process has
loaded, which every pipeline that runs them has. Their errors join the failing pass's, and the errors of
the stage are sorted by file, line and column where every one has a file location (emission order
otherwise: a module built in Python has none)."""
from __future__ import annotations

from ..diagnostics import active
from ..driver.stages import stage

__all__ = ["report_later_failures"]


def report_later_failures(failed, module_op, since: int, base: type) -> None:
    """After ``failed`` (a pass of class ``base``, DispatchPass) failed on ``module_op``: report what the
    later dispatch passes would refuse, then order the errors emitted from ``since`` (an index of the
    active engine's diagnostics)."""
    names = stage("dispatch").passes
    if failed.name not in names:
        return
    later = names[names.index(failed.name) + 1:]
    classes = {c.name: c for c in _subclasses(base)}
    eng = active()
    remarks = eng.remark_filter if eng is not None else None
    for name in later:
        cls = classes.get(name)
        if cls is None:
            continue
        clone = module_op.clone()
        try:
            if eng is not None:
                eng.remark_filter = None  # (errors only: the clone's lowerings are not the output)
            cls({k: v for k, v in failed.options.items() if k in cls.OPTIONS},
                compile_options=failed.compile).run(clone)
        finally:
            if eng is not None:
                eng.remark_filter = remarks
            clone.erase()
    if eng is None:
        return
    mine = eng.diagnostics[since:]
    if mine and all(d.file for d in mine):
        eng.diagnostics[since:] = sorted(mine, key=lambda d: (d.file, d.line, d.col))


def _subclasses(cls) -> list:
    out = []
    for c in cls.__subclasses__():
        out += [c, *_subclasses(c)]
    return out
