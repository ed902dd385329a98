"""Bug-zoo entries in real kernels: our persistent Blackwell GEMM (examples/) and kernels of the
foreign corpus (test/fixtures/foreign), each with one bug injected into its PTX by a mutation
that names the instructions it moves or drops; the unmutated kernel is the fixed twin.  A bug that
exploration found in a kernel as shipped (``shipped``) has the kernel as its bug and the
mutation (the fix) as its fixed twin.

Each entry: ``MUTANTS[name] = Mutant(what, load() -> (ptx, kernel, args factory, launch kw),
mutate(ptx) -> ptx)``; bench/zoo/run.py explores them as it does zoo_kernels.BUGS.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass
class Mutant:
    what: str
    load: Callable  # () -> (ptx, kernel name, args() -> fresh argument list, launch keywords)
    mutate: Callable[[str], str]
    strict: bool = True
    #: tile-sim's default schedule already reports it (its happens-before checks)
    default_finds: bool = False
    #: the bug ships in the kernel (found, not injected): ``mutate`` is then the fix
    shipped: bool = False

    # the interface of zoo_kernels.Bug (bench/zoo/run.py treats both alike)
    def ptx(self, fixed: bool) -> str:
        ptx = self.load()[0]
        return self.mutate(ptx) if fixed == self.shipped else ptx

    @property
    def kernel(self) -> str:
        return self.load()[1]

    def args(self) -> list:
        return self.load()[2]()

    def launch(self) -> dict:
        return dict(self.load()[3])


# ------------------------------------------------------------------ our persistent Blackwell GEMM
@lru_cache(maxsize=None)
def _bw_gemm():
    """The persistent block-scaled GEMM (mxfp8) at 128 x 384 x 128 on one CTA: three tiles, so the
    CTA's third tile reuses the first one's tensor-memory accumulator (acc[0])."""
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import ml_dtypes
    import numpy as np

    import tile_mlir
    from gemm_persistent_blackwell import PersistentBlackwellConfig, build, operands
    from tile_mlir.runtime.tensor_map import sim_tensor_map

    cfg = PersistentBlackwellConfig("mxfp8", 128, 384, 128, ctas=1, group_m=8, stages=2,
                                    tile_n=128, cta_group=1)
    art = tile_mlir.compile(build(cfg), arch="sm_100a", line_info=True)
    ops = operands(cfg, 0)

    def args():
        a = [np.ascontiguousarray(ops[n]) for n in ("A", "B", "SFA", "SFB")]
        a.append(np.zeros((cfg.m, cfg.n), ml_dtypes.bfloat16))
        index = {p.name: i for i, p in enumerate(art.params)}
        return a + [sim_tensor_map(tm, a[index[tm.buffer]]) for tm in art.tensor_maps]
    kw = dict(grid=art.grid, block=art.block, dynamic_smem=int(art.dynamic_smem))
    return art.ptx, art.kernel_name, args, kw


_ACC_RELEASE = re.compile(
    r"\tselp\.b32 \t?(%r\d+), \d+, \d+, (%p\d+);\n\tmov\.b32 \t?(%r\d+), \w+;\n"
    r"\tadd\.s32 \t?(%r\d+), \3, \1;\n\tmbarrier\.arrive\.shared\.b64 \t?%rd\d+, \[\4\];\n")


def _acc_release(ptx: str, what: str):
    m = _ACC_RELEASE.search(ptx)
    if m is None:
        raise ValueError(f"{what}: the epilogue's acc_empty arrive was not found")
    return m


def acc_release_early(ptx: str) -> str:
    """Move the epilogue's arrive on acc_empty[b] (the one whose address is selected by the
    epilogue's accumulator predicate) from after its tcgen05.ld of acc[b] to right after its wait
    on acc_full[b]: the MMA thread may start tile i + 2 in acc[b] before the epilogue read tile i."""
    m = _acc_release(ptx, "acc-reuse")
    body = ptx[:m.start()] + ptx[m.end():]
    sel = re.search(rf"\tselp\.b32 \t?%r\d+, \d+, \d+, {re.escape(m.group(2))};\n", body)
    fence = "\ttcgen05.fence::after_thread_sync;\n"
    at = body.index(fence, sel.end()) + len(fence)
    return body[:at] + m.group(0) + body[at:]


def acc_one_arrive(ptx: str) -> str:
    """acc_empty[0..1] counted for one arrival (the init counts 128, the epilogue's threads, become
    1) and the epilogue's arrive kept for its thread 128 alone (the predicate its TMA-store thread
    already has): the accumulator is released once warp 4 has read it, while warps 5-7 may not
    have yet."""
    m = _acc_release(ptx, "acc-arrive")
    arrive = m.group(0).splitlines(keepends=True)[-1]
    ep = re.search(r"\tsetp\.ne\.b32 \t?(%p\d+), %r\d+, 128;\n", ptx[:m.start()])
    out = ptx[:m.start()] + m.group(0).replace(arrive, f"\t@!{ep.group(1)} " + arrive.lstrip())
    out += ptx[m.end():]
    acc = re.search(r"\tselp\.b32 \t?%r\d+, (\d+), (\d+), %p\d+;\n", ptx[m.start():])
    for off in acc.group(1, 2):
        out, k = re.subn(rf"(mbarrier\.init\.shared\.b64 \t?\[\w+\+{off}\]), %r\d+;", r"\1, 1;",
                         out)
        if k != 1:
            raise ValueError(f"acc-arrive: the init of the mbarrier at +{off} was not found")
    return out


# ------------------------------------------------------------------ kernels of the foreign corpus
FOREIGN = os.path.join(ROOT, "test", "fixtures", "foreign")


@lru_cache(maxsize=None)
def _foreign(name: str):
    """A corpus kernel as its manifest launches it (the arguments of bench/foreign/corpus.py)."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "foreign"))
    import corpus
    from tile_mlir.sim import ByValue, TensorMap

    man, ptx, data = corpus.load(FOREIGN, name)

    def args():
        bufs = corpus.arrays(man, data)
        out = []
        for p in man["params"]:
            if p["kind"] == "buffer":
                out.append(bufs[p["buffer"]])
            elif p["kind"] == "bytes":
                out.append(int.from_bytes(bytes.fromhex(p["value"]), "little"))
            elif p["kind"] == "struct":
                out.append(ByValue(bytes.fromhex(p["value"]),
                                   {f["offset"]: bufs[f["buffer"]] for f in p["pointers"]}))
            else:
                out.append(TensorMap(p["data_type"], bufs[p["buffer"]], p["global_dim"],
                                     p["global_strides"], p["box_dim"], p["element_strides"],
                                     p["interleave"], p["swizzle"], p["l2_promotion"],
                                     p["oob_fill"]))
        return out
    kw = dict(grid=tuple(man["grid"]), block=tuple(man["block"]), cluster=tuple(man["cluster"]),
              dynamic_smem=man["dynamic_smem"])
    return ptx, man["kernel"], args, kw


_STORE_WAIT = re.compile(r"\tcp\.async\.bulk\.wait_group\.read \t?1;\n(\$L__\w+):\n"
                         r"(\tsetp\.ne\.b32 \t?%p\d+, %r\d+, 0;\n)\tbar\.sync \t?1;\n")


def staging_bar_dropped(ptx: str) -> str:
    """Drop the bar.sync 1 after the elected thread's second cp.async.bulk.wait_group.read 1 of
    the epilogue: the other warps then write the staging buffer of the first TMA store again
    without knowing that the store has finished reading it."""
    hits = list(_STORE_WAIT.finditer(ptx))
    if len(hits) < 2:
        raise ValueError("staging-bar: the epilogue's wait_group.read + bar.sync was not found")
    m = hits[1]
    keep = re.sub(r"\tbar\.sync \t?1;\n", "", m.group(0))
    return ptx[:m.start()] + keep + ptx[m.end():]


_WAIT_BLOCK = re.compile(r"\t// begin inline asm\n\t\{\n\t\.reg \.pred +P1; *\n\tLAB_WAIT: *\n"
                         r"\tmbarrier\.try_wait\.parity\.shared\.b64 P1, \[(%r\d+)\][^\n]*\n"
                         r"(?:[^\n]*\n){4}\t// end inline asm\n")


def clc_reissue_early(ptx: str) -> str:
    """Drop the CLC scheduler warp's wait, before each try_cancel, on the barrier on which every
    thread arrives once it has read the previous response: the scheduler then reissues
    try_cancel into the one response buffer while the other warps may not have read it."""
    at = ptx.index("clusterlaunchcontrol.try_cancel")
    resp_mb = re.search(r"\[(%r\d+)\];\n", ptx[at:]).group(1)
    waits = [m for m in _WAIT_BLOCK.finditer(ptx, 0, at) if m.group(1) != resp_mb]
    if not waits:
        raise ValueError("clc-reissue: the scheduler's wait before try_cancel was not found")
    m = waits[-1]
    return ptx[:m.start()] + ptx[m.end():]


@lru_cache(maxsize=None)
def _foreign_launch(name: str, index: int):
    """Launch ``index`` of a corpus kernel's sequence of launches, over buffers on which the
    launches before it ran (their default schedules), as the sequence runs it."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "foreign"))
    import corpus
    from tile_mlir.sim import run_ptx

    man, ptx, data = corpus.load(FOREIGN, name)
    seq = corpus.launches(man)
    L = seq[index]

    def args():
        bufs = corpus.arrays(man, data)
        for e in seq[:index]:
            run_ptx(ptx, e["kernel"], corpus.arguments(name, e, bufs), grid=e["grid"],
                    block=e["block"], cluster=e["cluster"], dynamic_smem=e["dynamic_smem"],
                    strict=False, workers=1)
        return corpus.arguments(name, L, bufs)
    kw = dict(grid=tuple(L["grid"]), block=tuple(L["block"]), cluster=tuple(L["cluster"]),
              dynamic_smem=L["dynamic_smem"])
    return ptx, L["kernel"], args, kw


_EPILOGUE_BAR = "\tbar.sync \t4, 256;\n"
_REDUCE_EXIT = "\tcp.async.bulk.wait_group.read \t0;\n\tbra.uni \t"


def dealloc_after_reduce(ptx: str) -> str:
    """The fix of CUTLASS's CuTe DSL FMHA backward (fmha_bwd.py at 7107b05): the compute warps
    (4-11) deallocate tensor memory after their epilogue barrier (id 4, 256 threads), which the
    reduce warps (0-3), still reading dQ from tensor memory, do not join; the fix makes the
    barrier count 384 and has the reduce warps arrive on it after their last tcgen05.ld."""
    if ptx.count(_EPILOGUE_BAR) != 1 or ptx.count(_REDUCE_EXIT) != 1:
        raise ValueError("tmem-dealloc: the epilogue barrier or the reduce warps' exit was not "
                         "found once")
    ptx = ptx.replace(_EPILOGUE_BAR, "\tbar.sync \t4, 384;\n")
    return ptx.replace(_REDUCE_EXIT, "\tbar.arrive \t4, 384;\n" + _REDUCE_EXIT)


MUTANTS = {
    "tmem-dealloc": Mutant("tensor memory deallocated by one warp group while another may still "
                           "read it: found, not injected (foreign: CuTe DSL bw_fmha_bwd as "
                           "shipped; the fix joins the reduce warps to the barrier before the "
                           "dealloc)", lambda: _foreign_launch("bw_fmha_bwd", 1),
                           dealloc_after_reduce, strict=False, shipped=True),
    "clc-reissue": Mutant("a CLC scheduler reissues try_cancel into its one response buffer "
                          "before every warp read the last response (foreign: CuTe DSL "
                          "bw_dense_gemm_persistent_dynamic)",
                          lambda: _foreign("bw_dense_gemm_persistent_dynamic"), clc_reissue_early,
                          strict=False, default_finds=True),
    "acc-arrive": Mutant("acc_empty counts one epilogue thread's arrive of 128: the accumulator "
                         "is released before warps 5-7 read it "
                         "(ours: examples/gemm_persistent_blackwell.py)", _bw_gemm,
                         acc_one_arrive),
    "acc-reuse": Mutant("the epilogue releases a tensor-memory accumulator before reading it "
                        "(ours: examples/gemm_persistent_blackwell.py)", _bw_gemm,
                        acc_release_early, default_finds=True),
    "staging-bar": Mutant("an epilogue's TMA-store staging buffer rewritten with no barrier after "
                          "the store's wait_group.read (foreign: CuTe DSL bw_dense_1cta)",
                          lambda: _foreign("bw_dense_1cta"), staging_bar_dropped, strict=False,
                          default_finds=True),
}
