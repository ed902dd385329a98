"""The one opcode table of tile-sim: mnemonic -> (decoder, scope).

* scope ``thread``: the decoder returns ``f(thread)``, executed once per active lane;
* scope ``warp``: the decoder returns ``(f(warp, lanes), req)``; the instruction executes once per
  warp when every required lane (``req(warp, lanes_at_pc)``, default: all lanes of the warp) is at
  it (``.sync.aligned`` convergence rule);
* scope ``cta`` / ``cluster``: per-thread arrival at a barrier that blocks the thread (executed like
  ``thread``; listed separately for documentation).

A mnemonic is looked up by the longest dotted prefix of the opcode (``tcgen05.cp`` for
``tcgen05.cp.cta_group::1.32x128b.warpx4``; ``bar.warp.sync`` before ``bar``).

Adding an instruction is a ``decode_<mnemonic>`` in its family's module under handlers/ and its row
here: the state a family keeps is declared there (:class:`~tile_mlir.sim.state.Kept`), and what it
must see of other instructions (thread exit, shared-memory accesses) is registered by its decoders
on ``d.M.hooks`` (:class:`~tile_mlir.sim.state.Hooks`).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from .errors import EmulationError
from .handlers import fparith, intarith
from .handlers import alu, control, convert, cp_async, matrix, mbarrier, memory, sync, tcgen05_alloc, \
    tcgen05_async, tcgen05_cp, tcgen05_ldst, tcgen05_mma, tma_copy, tma_group, warp, wgmma
from .handlers import async_store, atomics, calls, clc, mma_sync, regpool, tensormap_dev
from .handlers import approx, bulk_reduce, multimem, stack, wmma
from .locations import source
from .state import DInst


class Op(NamedTuple):
    decode: Callable
    scope: str


T, W, C, CL = "thread", "warp", "cta", "cluster"

TABLE: dict[str, Op] = {
    # ---- integer / float / bitwise / compare / move / convert (alu.py)
    "add": Op(alu.decode_add, T), "sub": Op(alu.decode_sub, T), "mul": Op(alu.decode_mul, T),
    "mul24": Op(alu.decode_mul24, T), "mad": Op(alu.decode_mad, T), "fma": Op(alu.decode_fma, T),
    "div": Op(alu.decode_div, T), "rem": Op(alu.decode_rem, T), "min": Op(alu.decode_min, T),
    "max": Op(alu.decode_max, T), "neg": Op(alu.decode_neg, T), "abs": Op(alu.decode_abs, T),
    "and": Op(alu.decode_and, T), "or": Op(alu.decode_or, T), "xor": Op(alu.decode_xor, T),
    "not": Op(alu.decode_not, T), "cnot": Op(alu.decode_cnot, T), "shl": Op(alu.decode_shl, T),
    "shr": Op(alu.decode_shr, T), "bfe": Op(alu.decode_bfe, T), "bfi": Op(alu.decode_bfi, T),
    "prmt": Op(alu.decode_prmt, T), "popc": Op(alu.decode_popc, T), "clz": Op(alu.decode_clz, T),
    "brev": Op(alu.decode_brev, T), "bfind": Op(alu.decode_bfind, T),
    "lop3": Op(alu.decode_lop3, T), "setp": Op(alu.decode_setp, T), "set": Op(alu.decode_set, T),
    "selp": Op(alu.decode_selp, T), "slct": Op(alu.decode_slct, T), "mov": Op(convert.decode_mov, T),
    "cvt": Op(convert.decode_cvt, T), "cvta": Op(convert.decode_cvta, T),
    # ---- floating point beyond alu.py's rows (fparith.py; .approx forms: their own rows)
    "sqrt": Op(fparith.decode_sqrt, T), "rcp": Op(fparith.decode_rcp, T),
    "copysign": Op(fparith.decode_copysign, T), "testp": Op(fparith.decode_testp, T),
    # ---- integer beyond alu.py's rows (intarith.py)
    "addc": Op(intarith.decode_carry, T), "subc": Op(intarith.decode_carry, T),
    "madc": Op(intarith.decode_carry, T), "mad24": Op(intarith.decode_mad24, T),
    "sad": Op(intarith.decode_sad, T), "dp4a": Op(intarith.decode_dp4a, T),
    "dp2a": Op(intarith.decode_dp2a, T), "bmsk": Op(intarith.decode_bmsk, T),
    "szext": Op(intarith.decode_szext, T), "fns": Op(intarith.decode_fns, T),
    "shf": Op(intarith.decode_shf, T),
    # ---- approximate math, bit-exact models of the special-function unit (approx.py)
    **{f"{m}.approx": Op(approx.decode_approx, T)
       for m in ("ex2", "lg2", "rcp", "rsqrt", "sqrt", "sin", "cos", "tanh")},
    # ---- memory (memory.py)
    "ld": Op(memory.decode_ld, T), "ldu": Op(memory.decode_ldu, T), "st": Op(memory.decode_st, T),
    "atom": Op(atomics.decode_atom, T), "red": Op(atomics.decode_red, T),  # atomics.py
    "st.async": Op(async_store.decode_st_async, T),  # async_store.py: into a peer's shared
    "red.async": Op(async_store.decode_red_async, T),  # memory, completing on its mbarrier
    "multimem": Op(multimem.decode_multimem, T),  # multimem.py: multicast objects
    "alloca": Op(stack.decode_alloca, T), "stacksave": Op(stack.decode_stacksave, T),  # stack.py
    "stackrestore": Op(stack.decode_stackrestore, T),
    "mapa": Op(memory.decode_mapa, T), "getctarank": Op(memory.decode_getctarank, T),
    "isspacep": Op(memory.decode_isspacep, T), "prefetch": Op(memory.decode_nop, T),
    "prefetchu": Op(memory.decode_nop, T), "applypriority": Op(memory.decode_nop, T),
    "discard": Op(memory.decode_nop, T), "nanosleep": Op(memory.decode_nop, T),
    "pmevent": Op(memory.decode_nop, T), "createpolicy": Op(memory.decode_createpolicy, T),
    # ---- cp.async: per-thread groups, performed at the covering wait (cp_async.py)
    "cp.async": Op(cp_async.decode_cp_async, T),
    "cp.async.commit_group": Op(cp_async.decode_commit_group, T),
    "cp.async.wait_group": Op(cp_async.decode_wait_group, T),
    "cp.async.wait_all": Op(cp_async.decode_wait_all, T),
    "cp.async.mbarrier.arrive": Op(cp_async.decode_mbarrier_arrive, T),
    # ---- TMA: bulk (tensor) copies, loads performed at issue completing on an mbarrier, stores
    # at the covering bulk wait_group (tma_copy.py; groups, prefetches: tma_group.py)
    "cp.async.bulk.tensor": Op(tma_copy.decode_bulk_tensor, T),
    "cp.async.bulk": Op(tma_copy.decode_bulk, T),
    "cp.reduce.async.bulk.tensor": Op(bulk_reduce.decode_reduce_tensor, T),  # bulk_reduce.py:
    "cp.reduce.async.bulk": Op(bulk_reduce.decode_reduce_bulk, T),  # the engine's reductions
    "cp.async.bulk.commit_group": Op(tma_group.decode_commit_group, T),
    "cp.async.bulk.wait_group": Op(tma_group.decode_wait_group, T),
    "cp.async.bulk.prefetch.tensor": Op(tma_group.decode_prefetch_tensor, T),
    "cp.async.bulk.prefetch": Op(tma_group.decode_prefetch_bulk, T),
    "prefetch.tensormap": Op(tma_group.decode_prefetch_tensormap, T),
    "prefetch.param.tensormap": Op(tma_group.decode_prefetch_tensormap, T),
    "prefetch.const.tensormap": Op(tma_group.decode_prefetch_tensormap, T),
    # ---- tensor maps in device memory: edits and copies (tensormap_dev.py)
    "tensormap.replace": Op(tensormap_dev.decode_replace, T),
    "tensormap.cp_fenceproxy": Op(tensormap_dev.decode_cp_fenceproxy, W),
    # ---- control (control.py)
    "bra": Op(control.decode_bra, T), "ret": Op(calls.decode_ret, T),
    "exit": Op(control.decode_exit, T), "trap": Op(control.decode_trap, T),
    "brkpt": Op(control.decode_brkpt, T), "call": Op(calls.decode_call, T),
    "brx": Op(control.decode_unsupported, T),
    # ---- barriers and fences (sync.py)
    "bar": Op(sync.decode_bar, C), "barrier": Op(sync.decode_bar, C),
    "barrier.cluster.arrive": Op(sync.decode_barrier_cluster_arrive, CL),
    "barrier.cluster.wait": Op(sync.decode_barrier_cluster_wait, CL),
    "fence": Op(sync.decode_fence, T), "membar": Op(sync.decode_membar, T),
    "griddepcontrol": Op(sync.decode_griddepcontrol, T),
    # ---- cluster launch control: cancelling clusters not yet launched (clc.py)
    "clusterlaunchcontrol.try_cancel": Op(clc.decode_try_cancel, T),
    "clusterlaunchcontrol.query_cancel": Op(clc.decode_query_cancel, T),
    # ---- warp collectives (warp.py)
    "bar.warp.sync": Op(warp.decode_bar_warp_sync, W), "elect.sync": Op(warp.decode_elect, W),
    "shfl": Op(warp.decode_shfl, W), "vote": Op(warp.decode_vote, W),
    "redux": Op(warp.decode_redux, W), "activemask": Op(warp.decode_activemask, T),
    "match": Op(warp.decode_match, W),
    # ---- warp-collective matrix loads / stores between shared memory and fragments (matrix.py)
    "ldmatrix": Op(matrix.decode_ldmatrix, W), "stmatrix": Op(matrix.decode_stmatrix, W),
    "movmatrix": Op(matrix.decode_movmatrix, W),
    # ---- mma.sync: warp-level MMA on register fragments (mma_sync.py)
    "mma": Op(mma_sync.decode_mma, W),
    "wmma": Op(wmma.decode_wmma, W),  # wmma.py: refused by name (fragment layouts unspecified)
    # ---- setmaxnreg: the CTA's register pool and the warpgroup rules (regpool.py)
    "setmaxnreg": Op(regpool.decode_setmaxnreg, W),
    # ---- mbarrier (mbarrier.py)
    "mbarrier.init": Op(mbarrier.decode_init, T), "mbarrier.inval": Op(mbarrier.decode_inval, T),
    "mbarrier.arrive": Op(mbarrier.decode_arrive, T),
    "mbarrier.arrive_drop": Op(mbarrier.decode_arrive, T),
    "mbarrier.expect_tx": Op(mbarrier.decode_expect_tx, T),
    "mbarrier.complete_tx": Op(mbarrier.decode_complete_tx, T),
    "mbarrier.test_wait": Op(mbarrier.decode_wait, T),
    "mbarrier.try_wait": Op(mbarrier.decode_wait, T),
    "mbarrier.pending_count": Op(mbarrier.decode_pending_count, T),
    # ---- tcgen05 (tcgen05_alloc, _cp, _ldst; commit in tcgen05_async)
    "tcgen05.alloc": Op(tcgen05_alloc.decode_alloc, W),
    "tcgen05.dealloc": Op(tcgen05_alloc.decode_dealloc, W),
    "tcgen05.relinquish_alloc_permit": Op(tcgen05_alloc.decode_relinquish, W),
    "tcgen05.cp": Op(tcgen05_cp.decode_cp, T),
    "tcgen05.commit": Op(tcgen05_async.decode_commit, T),
    "tcgen05.ld": Op(tcgen05_ldst.decode_ld, W), "tcgen05.st": Op(tcgen05_ldst.decode_st, W),
    "tcgen05.wait::ld": Op(tcgen05_ldst.decode_wait, W),
    "tcgen05.wait::st": Op(tcgen05_ldst.decode_wait, W),
    "tcgen05.fence::before_thread_sync": Op(tcgen05_ldst.decode_fence, T),
    "tcgen05.fence::after_thread_sync": Op(tcgen05_ldst.decode_fence, T),
    "tcgen05.mma": Op(tcgen05_mma.decode_mma, T),  # tcgen05_mma.py
    "tcgen05.shift": Op(tcgen05_async.decode_unsupported, T),
    # ---- wgmma (wgmma.py): warpgroup MMA, each warp executing its rows of D
    "wgmma.fence": Op(wgmma.decode_fence, W),
    "wgmma.mma_async": Op(wgmma.decode_mma_async, W),
    "wgmma.commit_group": Op(wgmma.decode_commit_group, W),
    "wgmma.wait_group": Op(wgmma.decode_wait_group, W),
}


def lookup(parts: list[str]) -> tuple[str, Op] | None:
    for k in range(len(parts), 0, -1):
        key = ".".join(parts[:k])
        op = TABLE.get(key)
        if op is not None:
            return key, op
    return None


def decode_all(dec, instructions) -> list:
    """Decode a kernel's instructions, every one before anything runs.  The instructions tile-sim
    cannot run are reported together, as one error: each form (the opcode with its modifiers) with
    its count, its PTX lines and the first reason, so that a kernel's gaps show in one run."""
    code, failed = [], {}
    for inst in instructions:
        try:
            code.append(decode_instruction(dec, inst))
        except EmulationError as e:
            failed.setdefault(inst.opcode, []).append((inst, e))
    if not failed:
        return code
    hits0 = next(iter(failed.values()))
    if len(failed) == 1 and len(hits0) == 1:  # one instruction: its own error, as it was
        raise hits0[0][1]
    n = sum(len(v) for v in failed.values())
    rows = []
    for opcode, hits in sorted(failed.items(), key=lambda kv: kv[1][0][0].line):
        lines = [i.line for i, _ in hits]
        shown = ", ".join(map(str, lines[:8])) + (f", ... ({len(lines) - 8} more)" if len(lines) > 8 else "")
        rows.append(f"  `{opcode}` x{len(hits)} (PTX line{'s' if len(lines) > 1 else ''} {shown}): "
                    f"{hits[0][1].message}")
    first = min((h[0][0] for h in failed.values()), key=lambda i: i.line)
    raise EmulationError(f"tile-sim cannot run {n} instruction{'s' if n > 1 else ''} of {dec.fn.name} "
                         f"({len(failed)} form{'s' if len(failed) > 1 else ''}); nothing ran:\n"
                         + "\n".join(rows), line=first.line, located=True)


def decode_instruction(dec, inst):
    dec.inst = inst
    found = lookup(inst.parts)
    if found is None:
        raise EmulationError(f"line {inst.line}: unknown instruction `{inst.opcode}` "
                             f"(mnemonic `{inst.parts[0]}`) in `{inst.text}`",
                             line=inst.line, located=True)
    key, op = found
    di = DInst(inst, key, source(dec.M.module.files, inst.loc))
    if inst.guard is not None:
        reg, neg = inst.guard
        di.guard = (dec.slot(("reg", reg)), neg)
    try:
        res = op.decode(dec, inst)
    except (KeyError, IndexError, ValueError, TypeError, OverflowError, AttributeError) as e:
        # A decoder that did not check a malformed form: the user still gets the PTX line, and the
        # message says "internal error" so that tests and the adversary campaigns count it as a bug.
        raise dec.error(f"internal error in tile-sim's decoder of `{key}` ({type(e).__name__}: {e}); "
                        "the form is probably not one the ISA defines") from e
    if op.scope == W:
        di.warp = True
        di.fn, di.req = res
    else:
        di.fn = res
    return di
