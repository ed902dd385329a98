#!/usr/bin/env python3
"""A pipelined GEMM written in the tile dialect: block-scaled MXFP8 / NVFP4 on Blackwell (tcgen05, sm_100a)
and its Hopper twin (wgmma, sm_90a), from one builder. docs/gemm-walkthrough.md goes through it stage by stage.

    python examples/gemm_blockscaled.py --target sm_90a --dtype bf16 -M 256 -N 512 -K 512   # tile IR
    python examples/gemm_blockscaled.py --target sm_100a --dtype mxfp8 -M 256 -N 256 -K 512 --ptx
    python examples/gemm_blockscaled.py --target sm_100a --dtype nvfp4 -M 128 -N 128 -K 512 --run sim
    python examples/gemm_blockscaled.py --target sm_100a --cta-group 2 -M 256 -N 128 -K 256 --run sim
    python examples/gemm_blockscaled.py ... -o gemm.mlir && tile-run gemm.mlir --backend sim --print summary

D[M, N] = A[M, K] . B[N, K]^T in bf16 ("TN": A and B K-major, as cuBLAS and CUTLASS store them); for the
block-scaled formats each element is multiplied by its block's scale (examples/gemm_reference.py).

The kernel (one CTA per output tile, grid = tiles of N x tiles of M):
  Hopper  384 threads: warpgroup 0 = producer (one thread issues the TMA loads of each K step into a
          `stages`-deep shared-memory ring, arming `full[s]` with the stage's bytes), warpgroups 1 and 2 =
          consumers (64 rows of the 128 x BN tile each: wait `full[s]`, wgmma m64nBNk16 over the stage with the
          accumulator in registers, wait until the previous stage's wgmmas are done and arrive on its
          `empty` barrier), then bf16 conversion and the store of the accumulator registers to D.
  Blackwell 256 threads: warp 0 = producer (TMA of A, B, SFA, SFB), warp 1 = MMA issuer (allocates tensor
          memory; per stage: tcgen05.cp of the scale factors to tensor memory, tcgen05.mma.block_scale over
          the stage, tcgen05.commit to `empty[s]`, the last K step to `done`), warps 4-7 = epilogue
          (tcgen05.ld of the accumulator, bf16, store). --cta-group 2: a cluster of 2 CTAs per 256 x tile_n
          tile; each stages its 128 rows of A and half of B's rows, all loads complete on the even CTA's
          `full[s]`, whose thread 32 issues the M = 256 cta_group::2 MMAs and commits to both CTAs' barriers;
          each CTA's epilogue stores its own 128 rows (docs/gemm-walkthrough.md §8).
The IR is built with tile_mlir's op builders (tile_mlir.dialect.builders); only the builder's own integers
and choices reach it (no user strings).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "python"))

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
from gemm_reference import FORMATS, add_check_options, module_text, run_check, start_check  # noqa: E402

from tile_mlir.dialect import builders as tb  # noqa: E402
from tile_mlir.mlir import arith, ir  # noqa: E402

DENSE = {"bf16": ("bf16", 2), "e4m3": ("f8E4M3FN", 1)}  # Hopper twin: element type, bytes
DENSE_NUMPY = {"bf16": ml_dtypes.bfloat16, "e4m3": ml_dtypes.float8_e4m3fn}
TARGETS = ("sm_90a", "sm_100a")
SMEM_LIMIT = 232448  # bytes of shared memory a CTA may have on sm_90 and sm_100 (227 KiB)


@dataclass(frozen=True)
class GemmConfig:
    """One kernel: the problem (M, N, K, dtype), the target and the tiling. Defaults are the tuned ones."""
    target: str
    dtype: str  # sm_90a: bf16 | e4m3; sm_100a: mxfp8 | nvfp4
    m: int
    n: int
    k: int
    tile_n: int = 0  # 0: the target's default (Hopper 256, Blackwell 128)
    stages: int = 4
    cta_group: int = 1  # Blackwell: 2 = a CTA pair per 256 x tile_n tile (docs/gemm-walkthrough.md §8)

    def __post_init__(self):
        if not self.tile_n:
            object.__setattr__(self, "tile_n", 256 if self.target == "sm_90a" else 128)
        if self.target not in TARGETS:
            raise ValueError(f"target must be one of {', '.join(TARGETS)}, got {self.target!r}")
        kinds = DENSE if self.target == "sm_90a" else FORMATS
        if self.dtype not in kinds:
            raise ValueError(f"dtype for {self.target} must be one of {', '.join(kinds)}, got {self.dtype!r}")
        if min(self.m, self.n, self.k) < 1:
            raise ValueError("M, N and K must be positive")
        if self.k % self.tile_k:
            raise ValueError(f"K={self.k} must be a multiple of the K tile {self.tile_k}")
        if self.stages < 2:
            raise ValueError("the ring needs at least 2 stages")
        if self.target == "sm_90a" and (self.tile_n % 8 or not 8 <= self.tile_n <= 256):
            raise ValueError(f"tile_n={self.tile_n}: wgmma N is 8..256 in steps of 8")
        if self.target == "sm_100a" and self.tile_n not in (128, 256):
            raise ValueError(f"tile_n={self.tile_n}: the Blackwell kernel takes 128 or 256 (whole scale atoms)")
        if self.cta_group not in (1, 2) or (self.cta_group == 2 and self.target != "sm_100a"):
            raise ValueError(f"cta_group={self.cta_group}: 1, or 2 (CTA pairs) on sm_100a")
        if self.m < self.tile_m or self.n < self.tile_n:
            raise ValueError(f"M={self.m}, N={self.n}: at least one whole {self.tile_m} x {self.tile_n} tile (a TMA "
                             "window stays within the tensor; edge tiles past the first are fine)")
        if self.smem_bytes > SMEM_LIMIT:
            raise ValueError(f"{self.stages} stages of this tiling need {self.smem_bytes} bytes of shared memory, "
                             f"more than a CTA's {SMEM_LIMIT}: use fewer stages")
        if self.n % 8:
            raise ValueError(f"N={self.n} must be a multiple of 8: TMA moves rows of D (bf16) of 16-byte multiples")
        if self.target == "sm_90a" and (self.m % self.tile_m or self.n % self.tile_n):
            raise ValueError(f"M={self.m}, N={self.n}: the Hopper twin stores D from registers, so whole "
                             f"{self.tile_m} x {self.tile_n} tiles only")

    @property
    def smem_bytes(self) -> int:
        """Shared memory of the kernel: the ring (A, B and, on Blackwell, the scale atoms of a stage), the
        Blackwell epilogue's bf16 tile of D, barriers; an upper bound."""
        stage = int((self.tile_m + self.tile_n // self.cta_group) * self.tile_k * self.elem_bytes)
        extra = 0
        if self.target == "sm_100a":
            atoms_k = self.tile_k // FORMATS[self.dtype].vec // 4
            stage += (1 + self.tile_n // 128) * atoms_k * 512
            extra = 128 * self.tile_n * 2
        return self.stages * stage + extra + 8 * (2 * self.stages + 1) + 4 + 1024  # (+ alignment padding)

    @property
    def tile_m(self) -> int:
        return 128

    @property
    def elem_bytes(self) -> float:
        if self.target == "sm_90a":
            return DENSE[self.dtype][1]
        return FORMATS[self.dtype].elem_bits / 8

    @property
    def tile_k(self) -> int:
        """One 128-byte swizzle row of K per stage."""
        return int(128 / self.elem_bytes)

    @property
    def k_tiles(self) -> int:
        return self.k // self.tile_k

    @property
    def grid(self) -> tuple[int, int, int]:
        if self.cta_group == 2:  # x: the 128-row halves of the pairs' 256-row tiles, a cluster per pair
            return (2 * -(-self.m // (2 * self.tile_m)), -(-self.n // self.tile_n), 1)
        return (-(-self.n // self.tile_n), -(-self.m // self.tile_m), 1)

    @property
    def name(self) -> str:
        return f"gemm_{self.dtype}_{self.m}x{self.n}x{self.k}" + ("_pair" if self.cta_group == 2 else "")


# ------------------------------------------------------------------------------------------- IR
def _mul(a, b):
    return arith.muli(a, b)


def _add(a, b):
    return arith.addi(a, b)


def _cmp(pred: str, a, b):
    return arith.cmpi(getattr(arith.CmpIPredicate, pred), a, b)


def _buf(scope: str, shape, elem: str, layout: str | None = None, align: int | None = None):
    return tb.buffer_t(scope, shape, elem, layout, align=align)


def _global_tile(buf, offsets, shape, elem: str, full_shape):
    """A window of `shape` elements of the row-major global buffer `buf` (of full_shape) at SSA offsets
    (one per dim), keeping its strides: TMA adds the offsets to its coordinates, tile.copy to its address."""
    strides = [math.prod(full_shape[d + 1:]) for d in range(len(full_shape))]
    out_t = _buf("global", shape, elem, f"S[({', '.join(map(str, shape))}) : ({', '.join(map(str, strides))})]")
    return tb.subview(buf, offsets, out_t, static_offsets=[-1] * len(offsets), sizes=shape)


def _tensor_map(buf, box, swizzle: bool = False) -> None:
    """The TMA tensor map of a kernel buffer (a grid-constant parameter the runtime encodes at launch)."""
    tb.tensor_map(buf, box, swizzle="128B" if swizzle else "none")


def _staging(bm: int, bn: int) -> list:
    """The epilogue's staging tile of bm x bn bf16 as bn / EPI_COLS boxes of 64 columns (one 128-byte swizzle
    row each), 128B-swizzled: each thread writes a row, and the swizzle puts a warp's 32 rows' 16-byte stores
    on distinct bank groups 8 at a time, where rows 2 * bn bytes apart would all fall on the same 4 banks
    (docs/registers.md §6). Each box is stored by its own TMA store."""
    return [tb.alloc_shared(_swizzled(bm, EPI_COLS, "bf16")) for _ in range(bn // EPI_COLS)]


def _store_staging(D, sd, m0, n0, rows: int, c) -> None:
    """The staging boxes of `_staging` (rows x 64 each) to D's window at (m0, n0): one TMA store a box,
    clipped at D's edges (`c` makes an i32 constant)."""
    for i, box in enumerate(sd):
        col = _add(n0, c(i * EPI_COLS)) if i else n0
        tb.copy_async(tb.subview(D, [m0, col], static_offsets=[-1, -1], sizes=[rows, EPI_COLS]), box)


def _swizzled(rows: int, cols: int, elem: str):
    """A tile as TMA writes a box with 128B swizzle: rows of 128 bytes (cols elements), atoms of 8 rows on the
    absolute address, hence 1024-byte aligned."""
    return _buf("shared", (rows, cols), elem, f"Swizzle<128B> o S[({rows}, {cols}) : ({cols}, 1)]", 1024)


class _Pipeline:
    """The ring's schedule: K step kt = trip * 2S + j uses stage j % S and waits for mbarrier phase
    (j // S) % 2 -- static in the unrolled body, so stages and barriers are separate static buffers and no
    address is computed at run time. A step past the last K tile (K tiles not a multiple of 2S) is skipped."""

    def __init__(self, c: tb.Constants, cfg: GemmConfig):
        self.c, self.cfg = c, cfg
        self.unroll = 2 * cfg.stages

    @contextmanager
    def steps(self):
        """Yields, once per unrolled step, (j, stage, phase, kt value) with the insertion point inside it."""
        c, cfg = self.c, self.cfg
        trips = -(-cfg.k_tiles // self.unroll)
        with tb.loop(c(0), c(trips), c(1)) as trip:
            base = _mul(trip, c(self.unroll))

            def gen():
                for j in range(self.unroll):
                    kt = _add(base, c(j))
                    if cfg.k_tiles % self.unroll:
                        with tb.when(_cmp("ult", kt, c(cfg.k_tiles))):
                            yield j, j % cfg.stages, (j // cfg.stages) % 2, kt
                    else:
                        yield j, j % cfg.stages, (j // cfg.stages) % 2, kt
            yield gen()


def _bar_t():
    return _buf("shared", (1,), "i64")


EPI_COLS = 64  # accumulator columns a Blackwell epilogue thread holds at a time (tcgen05.ld.32x32b.x64)


@contextmanager
def _kernel(module, cfg: GemmConfig, params, block: int, cluster=None):
    """cfg's tile.kernel in `module`: yields (its arguments, the constants of its body)."""
    with tb.kernel(module, cfg.name, params, block=(block, 1, 1), grid=cfg.grid, cluster=cluster) as (k, args):
        yield args, tb.Constants(k.regions[0].blocks[0])
        tb.ret()


# ---------------------------------------------------------------------------------------- Hopper twin
def _wgmma_acc_layout(n: int, warp0: int) -> str:
    """The wgmma m64nNk16 accumulator fragment (docs/registers.md §1) of the warpgroup whose
    first warp is warp0: row = 16 w + l / 4 + 8 ((v >> 1) & 1), col = 8 (v / 4) + 2 (l % 4) + (v & 1)."""
    return (f"S[(4, 2, 8, {n // 8}, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]"
            + (f" + O[{warp0}@warpid]" if warp0 else ""))


def hopper_ir(cfg: GemmConfig, module) -> None:
    elem, size = DENSE[cfg.dtype]
    bm, bn, bk, st = cfg.tile_m, cfg.tile_n, cfg.tile_k, cfg.stages
    a_t = _buf("global", (cfg.m, cfg.k), elem)
    b_t = _buf("global", (cfg.n, cfg.k), elem)
    d_t = _buf("global", (cfg.m, cfg.n), "bf16")
    sa_t, sb_t = _swizzled(bm, bk, elem), _swizzled(bn, bk, elem)
    with _kernel(module, cfg, {"A": a_t, "B": b_t, "D": d_t}, block=384) as ((A, B, D), c):
        _tensor_map(A, (bm, bk), swizzle=True)
        _tensor_map(B, (bn, bk), swizzle=True)
        sa, sb = [], []
        for s in range(st):
            sa.append(tb.alloc_shared(sa_t))
            sb.append(tb.alloc_shared(sb_t))
        full, empty = [], []
        for s in range(st):
            full.append(tb.alloc_shared(_bar_t()))
            empty.append(tb.alloc_shared(_bar_t()))
        tid, warp = tb.thread_id(), tb.warp_id()
        is_t0 = _cmp("eq", tid, c(0))
        # 1. full[s]: the producer's arrive + the stage's TMA bytes; empty[s]: one arrive per consumer warpgroup
        with tb.when(is_t0):
            for s in range(st):
                tb.mbarrier_init(full[s], 1)
                tb.mbarrier_init(empty[s], 2)
        tb.barrier()
        bx, by = tb.block_id("x"), tb.block_id("y")
        m0, n0 = _mul(by, c(bm)), _mul(bx, c(bn))
        wg = arith.divui(warp, c(4))
        with tb.when(_cmp("eq", wg, c(0))) as producer:
            # 2. producer: one thread; K step kt into its stage once both consumers released the stage's last use
            with tb.when(is_t0):
                with _Pipeline(c, cfg).steps() as steps:
                    for j, s, phase, kt in steps:
                        tb.mbarrier_wait(empty[s], 1 - phase)  # (the first pass finds every stage free)
                        tb.mbarrier_arrive_expect_tx(full[s], (bm + bn) * bk * size)
                        k0 = _mul(kt, c(bk))
                        for glob, row0, rows, dst, full_rows in ((A, m0, bm, sa[s], cfg.m), (B, n0, bn, sb[s], cfg.n)):
                            src = _global_tile(glob, (row0, k0), (rows, bk), elem, (full_rows, cfg.k))
                            tb.copy_async(dst, src, full[s])
        with producer.otherwise():
            for w in (1, 2):  # 3. consumers: warpgroup w computes rows 64 (w - 1) .. 64 w - 1 of the tile
                with tb.when(_cmp("eq", wg, c(w))):
                    _hopper_consumer(c, cfg, w, sa, sb, full, empty, tid, m0, n0, D)


def _hopper_consumer(c, cfg, w, sa, sb, full, empty, tid, m0, n0, D):
    bn, bk, st = cfg.tile_n, cfg.tile_k, cfg.stages
    acc_t = _buf("reg", (64, bn), "f32", _wgmma_acc_layout(bn, 4 * w))
    out_t = _buf("reg", (64, bn), "bf16", _wgmma_acc_layout(bn, 4 * w))
    rows = [(64 * (w - 1), 64 * w), (0, bk)]
    acc = tb.alloc_reg(acc_t)
    leader = _cmp("eq", tid, c(128 * w))
    with _Pipeline(c, cfg).steps() as steps:
        for j, s, phase, kt in steps:
            tb.mbarrier_wait(full[s], phase)
            accumulate = _cmp("ugt", kt, c(0))
            tb.gemm_async(acc, sa[s], sb[s], accumulate, scope="warpgroup", a_region=rows)
            # once at most this step's wgmmas are pending, the previous step's stage is free again
            tb.gemm_wait(1)
            with tb.when(accumulate):
                with tb.when(leader):
                    tb.mbarrier_arrive(empty[(s - 1) % st])
    tb.gemm_wait(0)
    out = tb.alloc_reg(out_t)
    tb.convert(out, acc, "rn")
    row = _add(m0, c(64 * (w - 1)))
    dst = _global_tile(D, (row, n0), (64, bn), "bf16", (cfg.m, cfg.n))
    tb.copy(dst, out, scope="warpgroup")


# ------------------------------------------------------------------------------------------ Blackwell
def _sf_layouts(rows: int, nsf: int, col0: int) -> tuple[str, str]:
    """The scale factors of `rows` rows x nsf blocks of one stage: (shared, tmem) layouts of the logical
    rows x nsf matrix. Shared: the 128x4 atoms as TMA copied them (rows of atoms am, then K atoms kq; byte of
    (r, kb) at am*AK*512 + kq*512 + (r%32)*16 + (r/32%4)*4 + kb%4). Tmem (docs/gemm.md §5):
    row r at lane r%32 of every lane quarter, column col0 + kq*(4 AM) + am*4 + r/32%4, byte kb%4; one
    tcgen05.cp.32x128b.warpx4 per atom."""
    am, ak = rows // 128, nsf // 4
    smem = f"S[({am}, 4, 32, {ak}, 4) : ({ak * 512}, 4, 16, 512, 1)]"
    tmem = (f"S[({am}, 4, 32, {ak}, 4) : (16@TCol, 4@TCol, 1@TLane, {16 * am}@TCol, 1@TCol)]"
            + (f" + O[{4 * col0}@TCol]" if col0 else "") + " + R[4 : 32@TLane]")
    return smem, tmem


def _set_up(is_mma_warp, is_t0, slot, tmem_cols: int, cg: int, barriers) -> None:
    """Warp 1 allocates the tensor memory, thread 0 initialises each (barrier, arrival count) of `barriers`; then
    the CTA meets (a pair: the cluster too, so that the peer's barriers are initialised and its tensor memory
    allocated before either uses them), between the fences that order the allocation for every tcgen05 op."""
    with tb.when(is_mma_warp):
        tb.tmem_alloc(slot, tmem_cols, cg)
    with tb.when(is_t0):
        for bar, count in barriers:
            tb.mbarrier_init(bar, count)
    tb.fence("tcgen05_before_sync")
    tb.barrier()
    if cg == 2:
        tb.barrier("cluster")
    tb.fence("tcgen05_after_sync")


def blackwell_ir(cfg: GemmConfig, module) -> None:
    fmt = FORMATS[cfg.dtype]
    elem, sf_elem = fmt.elem_mlir, fmt.scale_mlir
    bm, bn, bk, st, cg = 128, cfg.tile_n, cfg.tile_k, cfg.stages, cfg.cta_group
    bnc = bn // cg  # rows of B a CTA stages (a pair's MMA reads the even CTA's first, then the odd's)
    nsf = bk // fmt.vec  # scale blocks per row per stage
    ak = nsf // 4
    kt4 = cfg.k_tiles * ak  # K atoms of the whole K
    mt, nt = -(-cfg.m // 128), -(-cfg.n // 128)
    # A and B travel as bytes (TMA moves no 4-bit type: e2m1 is two per byte, low nibble first); the MMA
    # reads each stage through a tile.reinterpret view of the elements
    packed = fmt.elem_bits < 8
    g_elem, kb, kbytes = ("ui8", 128, cfg.k * fmt.elem_bits // 8) if packed else (elem, bk, cfg.k)
    a_t, b_t = _buf("global", (cfg.m, kbytes), g_elem), _buf("global", (cfg.n, kbytes), g_elem)
    sfa_t = _buf("global", (mt, kt4 * 32, 16), "ui8")
    sfb_t = _buf("global", (nt, kt4 * 32, 16), "ui8")
    d_t = _buf("global", (cfg.m, cfg.n), "bf16")
    sa_t, sb_t = _swizzled(bm, kb, g_elem), _swizzled(bnc, kb, g_elem)
    va_t, vb_t = _swizzled(bm, bk, elem), _swizzled(bnc, bk, elem)
    sf_box = {"a": (1, ak * 32, 16), "b": (bn // 128, ak * 32, 16)}
    sf_raw_t = {n: _buf("shared", box, "ui8", f"S[({box[0]}, {box[1]}, 16) : ({box[1] * 16}, 16, 1)]", 128)
                for n, box in sf_box.items()}
    sf_cols = {"a": 4 * ak, "b": 4 * ak * bn // 128}  # tmem columns of a stage's SFA, SFB
    stage_cols = sf_cols["a"] + sf_cols["b"]
    tmem_cols = 1 << max(5, (bn + st * stage_cols - 1).bit_length())
    if tmem_cols > 512:
        raise ValueError(f"{bn} accumulator + {st} x {stage_cols} scale columns exceed tensor memory's 512")
    # a CTA's bytes per stage (SFB for all N in each CTA of a pair: docs/gemm-walkthrough.md §8)
    stage_bytes = (bm + bnc) * bk * fmt.elem_bits // 8 + (sf_box["a"][0] + sf_box["b"][0]) * ak * 512
    acc_t = _buf("tmem", (bm, bn), "f32", f"S[({bm}, {bn}) : (1@TLane, 1@TCol)]")
    regs_layout = f"S[(4, 32, {EPI_COLS}) : (1@warpid, 1@laneid, 1@reg)] + O[4@warpid]"
    params = {"A": a_t, "B": b_t, "SFA": sfa_t, "SFB": sfb_t, "D": d_t}
    with _kernel(module, cfg, params, block=256, cluster=(2, 1, 1) if cg == 2 else None) as ((A, B, SFA, SFB, D), c):
        _tensor_map(A, (bm, kb), swizzle=True)
        _tensor_map(B, (bnc, kb), swizzle=True)
        _tensor_map(SFA, sf_box["a"])
        _tensor_map(SFB, sf_box["b"])
        _tensor_map(D, (bm, EPI_COLS), swizzle=True)
        sa, sb, va, vb, sf = [], [], [], [], {}
        for s in range(st):
            sa.append(tb.alloc_shared(sa_t))
            sb.append(tb.alloc_shared(sb_t))
            if packed:
                va.append(tb.reinterpret(sa[s], va_t))
                vb.append(tb.reinterpret(sb[s], vb_t))
            for n in "ab":
                sf[n, s] = tb.alloc_shared(sf_raw_t[n])
        sd = _staging(bm, bn)
        full, empty = [], []
        for s in range(st):
            full.append(tb.alloc_shared(_bar_t()))
            empty.append(tb.alloc_shared(_bar_t()))
        done = tb.alloc_shared(_bar_t())
        slot = tb.alloc_shared(_buf("shared", (1,), "i32"))
        tid, warp = tb.thread_id(), tb.warp_id()
        is_t0 = _cmp("eq", tid, c(0))
        if cg == 2:  # the pair's even CTA (rank 0 of the cluster of 2) arms `full` and issues the MMAs
            rank = tb.cta_rank()
            is_leader = _cmp("eq", rank, c(0))
        is_mma_warp = _cmp("eq", warp, c(1))
        # 1. set-up: warp 1 allocates tensor memory; full[s] = producer arrive + bytes, empty[s] and done =
        #    tcgen05.commit of the MMA thread
        _set_up(is_mma_warp, is_t0, slot, tmem_cols, cg,
                [(bar, 1) for s in range(st) for bar in (full[s], empty[s])] + [(done, 1)])
        acc = tb.tmem_buffer(slot, acc_t)
        tsf, vsf = {}, {}
        for s in range(st):
            for n, rows, col in (("a", bm, bn + s * stage_cols), ("b", bn, bn + s * stage_cols + sf_cols["a"])):
                smem_l, tmem_l = _sf_layouts(rows, nsf, col)
                tsf[n, s] = tb.tmem_buffer(slot, _buf("tmem", (rows, nsf), sf_elem, tmem_l))
                vsf[n, s] = tb.reinterpret(sf[n, s], _buf("shared", (rows, nsf), sf_elem, smem_l, 128))
        bx, by = tb.block_id("x"), tb.block_id("y")
        if cg == 1:
            m_blk, n_blk = by, bx
            m0 = _mul(by, c(bm))
            n0 = row0_b = _mul(bx, c(bn))
        else:  # block x = the CTA's 128-row half of the pair's 256 rows; its half of B's rows
            m_blk, n_blk = bx, by
            m0 = _mul(bx, c(bm))
            n0 = _mul(by, c(bn))
            row0_b = _add(n0, _mul(rank, c(bnc)))
        nb0 = _mul(n_blk, c(bn // 128))
        # a pair's loads all complete on the even CTA's `full` (docs/tma.md §8), which counts both CTAs' bytes
        tma_attrs = {"cta_group": 2, "barrier_cta": "pair_leader"} if cg == 2 else {}
        with tb.when(is_t0):
            # 2. producer (thread 0): A, B and their scale atoms of K step kt into stage kt % stages
            with _Pipeline(c, cfg).steps() as steps:
                for j, s, phase, kt in steps:
                    tb.mbarrier_wait(empty[s], 1 - phase)
                    if cg == 1:
                        tb.mbarrier_arrive_expect_tx(full[s], cg * stage_bytes)
                    else:
                        with tb.when(is_leader):
                            tb.mbarrier_arrive_expect_tx(full[s], cg * stage_bytes)
                    k0 = _mul(kt, c(kb))
                    r0 = _mul(kt, c(ak * 32))
                    for dst, glob, offs, shape, el, whole in (
                            (sa[s], A, (m0, k0), (bm, kb), g_elem, (cfg.m, kbytes)),
                            (sb[s], B, (row0_b, k0), (bnc, kb), g_elem, (cfg.n, kbytes)),
                            (sf["a", s], SFA, (m_blk, r0, c(0)), sf_box["a"], "ui8", (mt, kt4 * 32, 16)),
                            (sf["b", s], SFB, (nb0, r0, c(0)), sf_box["b"], "ui8", (nt, kt4 * 32, 16))):
                        tb.copy_async(dst, _global_tile(glob, offs, shape, el, whole), full[s], **tma_attrs)
        is_mma_thread = _cmp("eq", tid, c(32))
        if cg == 2:
            is_mma_thread = arith.andi(is_mma_thread, is_leader)
        with tb.when(is_mma_thread):
            # 3. MMA issuer (thread 32; of a pair, the even CTA's): scale factors to tensor memory, then the
            #    block-scaled MMAs of the stage; the commit frees the stage once they (and the copies) are done
            #    (a pair's: in both CTAs, multicast)
            with _Pipeline(c, cfg).steps() as steps:
                for j, s, phase, kt in steps:
                    tb.mbarrier_wait(full[s], phase)
                    for n in "ab":
                        tb.copy_async(tsf[n, s], vsf[n, s], cta_group=cg)
                    accumulate = _cmp("ugt", kt, c(0))
                    a, b = (va[s], vb[s]) if packed else (sa[s], sb[s])
                    tb.gemm_async_block_scale(acc, a, b, accumulate, tsf["a", s], tsf["b", s], cta_group=cg,
                                              scale_vec=fmt.vec)
                    # the last step's MMAs (the last writers of D) complete on `done`, which the epilogue waits
                    # for; every other step's free its stage
                    mask = 3 if cg == 2 else None
                    with tb.when(_cmp("eq", kt, c(cfg.k_tiles - 1))) as last:
                        tb.commit(done, cg, mask)
                    with last.otherwise():
                        tb.commit(empty[s], cg, mask)
        with tb.when(_cmp("uge", warp, c(4))):
            # 4. epilogue (warps 4-7: warp w reaches lane quarter w % 4 = rows 32 (w - 4) ..): tmem -> registers -> bf16 -> shared
            tb.mbarrier_wait(done, 0)
            tb.fence("tcgen05_after_sync")
            racc = tb.alloc_reg(_buf("reg", (bm, EPI_COLS), "f32", regs_layout))
            rout = tb.alloc_reg(_buf("reg", (bm, EPI_COLS), "bf16", regs_layout))
            for c0 in range(0, bn, EPI_COLS):  # column slices: 64 registers a thread at a time
                cols = [(0, bm), (c0, c0 + EPI_COLS)]
                tb.copy_async(racc, acc, scope="warpgroup", src_region=cols)
                tb.convert(rout, racc, "rn")
                tb.copy(sd[c0 // EPI_COLS], rout, scope="warpgroup")
        tb.fence("tcgen05_before_sync")
        tb.barrier()
        if cg == 2:  # neither CTA frees tensor memory or exits while its peer may still signal it
            tb.barrier("cluster")
        # 5. one thread stores the tile with TMA (clipped at the tensor's edge) and waits for it; warp 1 frees
        #    tensor memory
        with tb.when(is_t0):
            _store_staging(D, sd, m0, n0, bm, c)
            tb.bulk_wait(0, "all")
        with tb.when(is_mma_warp):
            tb.fence("tcgen05_after_sync")
            tb.tmem_relinquish(cg)
            tb.tmem_dealloc(slot, tmem_cols, cg)


def build(cfg: GemmConfig, context=None):
    """cfg's kernel as a tile IR module (in `context`, default a new tile_mlir context)."""
    from tile_mlir.frontend.context import make_context

    ctx = context or make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        (hopper_ir if cfg.target == "sm_90a" else blackwell_ir)(cfg, module)
    return module


def operands(cfg: GemmConfig, seed: int = 0) -> dict:
    """Random inputs of cfg's kernel by parameter name (examples/gemm_reference.py), as the kernel takes them
    (e2m1 packed two per byte, scale factors as 128x4 atoms), plus the logical operands under "logical"."""
    if cfg.target == "sm_90a":
        from gemm_reference import random_dense
        a, b = random_dense(DENSE_NUMPY[cfg.dtype], cfg.m, cfg.n, cfg.k, seed=seed)
        return {"A": a, "B": b, "logical": (a, b)}
    from gemm_reference import operand_bytes, random_blockscaled, sf_atoms
    fmt = FORMATS[cfg.dtype]
    a, sfa, b, sfb = random_blockscaled(fmt, cfg.m, cfg.n, cfg.k, seed=seed)
    return {"A": operand_bytes(a, fmt), "B": operand_bytes(b, fmt),
            "SFA": sf_atoms(sfa).reshape(-(-cfg.m // 128), -1, 16),
            "SFB": sf_atoms(sfb).reshape(-(-cfg.n // 128), -1, 16), "logical": (a, sfa, b, sfb)}


def expected(cfg: GemmConfig, logical) -> np.ndarray:
    """D as the kernel computes it: MMA-Sim's model of its MMA chain (Hopper wgmma / Blackwell tcgen05), bf16."""
    import gemm_reference as ref
    d = ref.mmasim_wgmma(*logical) if cfg.target == "sm_90a" else ref.mmasim_blockscaled(*logical, FORMATS[cfg.dtype])
    return ref.to_bf16(d)


def run(cfg: GemmConfig, seed: int = 0, backend: str = "sim", args: dict | None = None):
    """(D, logical operands): cfg's kernel run through tile_mlir.jit on random operands (``args``: operands(cfg,
    seed) made already)."""
    import tile_mlir

    args = args if args is not None else operands(cfg, seed)
    d = np.zeros((cfg.m, cfg.n), ml_dtypes.bfloat16)
    kernel = tile_mlir.jit(build(cfg), arch=cfg.target, backend=backend)
    kernel(*[args[n] for n in ("A", "B", "SFA", "SFB") if n in args], d)
    return d, args["logical"]


def main(argv=None) -> int:
    from example_cli import MAX_EXTENT, int_in, run_main

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", choices=TARGETS, default="sm_100a")
    p.add_argument("--dtype", default=None, help="sm_90a: bf16 (default) | e4m3; sm_100a: mxfp8 (default) | nvfp4")
    p.add_argument("-M", type=int_in(1, MAX_EXTENT), default=256)
    p.add_argument("-N", type=int_in(1, MAX_EXTENT), default=256)
    p.add_argument("-K", type=int_in(1, MAX_EXTENT), default=512)
    p.add_argument("--tile-n", type=int, default=None)
    p.add_argument("--stages", type=int_in(0, 64), default=4)
    p.add_argument("--cta-group", type=int, choices=(1, 2), default=1,
                   help="sm_100a: 2 = CTA pairs (cluster of 2) issuing M = 256 MMAs")
    p.add_argument("--ptx", action="store_true", help="compile and print the PTX instead of the tile IR")
    p.add_argument("--run", choices=("sim", "gpu", "auto"), help="run the kernel on random operands (tile-sim, "
                   "the GPU, or the GPU when it can) and compare D bit for bit with the exact model of MMA-Sim's "
                   "arithmetic, itself checked against MMA-Sim on sampled tiles")
    p.add_argument("-o", "--output", help="write to this file instead of stdout")
    add_check_options(p)
    args = p.parse_args(argv)
    return run_main(p, lambda: _main(p, args))


def _main(p, args) -> int:
    dtype = args.dtype or ("bf16" if args.target == "sm_90a" else "mxfp8")
    if args.tile_n is not None and args.tile_n < 1:  # (GemmConfig's 0 means "the default": not from here)
        p.error(f"--tile-n {args.tile_n}: a tile is at least 1 column wide")
    try:
        cfg = GemmConfig(args.target, dtype, args.M, args.N, args.K,
                         **({"tile_n": args.tile_n} if args.tile_n is not None else {}),
                         stages=args.stages, cta_group=args.cta_group)
    except ValueError as e:
        p.error(str(e))
    if args.run:
        ops, fmt = operands(cfg), None if cfg.target == "sm_90a" else FORMATS[cfg.dtype]
        # the check's reference starts first, on worker processes: it runs while the kernel compiles and runs
        started = None if args.mmasim_full else start_check(ops["logical"], fmt, args.samples)
        try:
            d, logical = run(cfg, backend=args.run, args=ops)
        except BaseException:
            if started is not None:
                started.cancel()
            raise
        return run_check(f"{cfg.name} on {args.run}", d, logical, fmt, args, started)
    text = module_text(build(cfg), cfg.target, cfg.name, args.ptx)
    if args.output:
        try:
            with open(args.output, "w") as f:
                f.write(text)
        except OSError as e:
            p.exit(1, f"{p.prog}: error: cannot write {args.output}: {e.strerror or e}\n")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
