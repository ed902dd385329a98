#!/usr/bin/env python3
"""The persistent block-scaled Blackwell GEMM (MXFP8 / NVFP4, tcgen05, sm_100a) in the tile dialect, built with
the keyword builders: as many CTAs as multiprocessors, each walking output tiles in grouped order, with the
accumulator double-buffered in tensor memory so that one tile's epilogue overlaps the next tile's MMAs.
docs/gemm-walkthrough.md §11 goes through it.

    python examples/gemm_persistent_blackwell.py --dtype mxfp8 -M 300 -N 264 -K 416 --ctas 2           # tile IR
    python examples/gemm_persistent_blackwell.py --dtype nvfp4 -M 300 -N 264 -K 416 --ctas 2 --run sim # vs MMA-Sim
    python examples/gemm_persistent_blackwell.py --dtype mxfp8 -M 300 -N 264 -K 416 --ctas 2 --cta-group 2 --run sim
    python examples/gemm_persistent_blackwell.py --dtype mxfp8 -M 300 -N 264 -K 416 --ptx

D[M, N] = A[M, K] . B[N, K]^T in bf16 with every element times its block's scale (examples/gemm_reference.py), A
and B K-major, as examples/gemm_blockscaled.py's Blackwell kernel, whose warp roles it keeps (256 threads: thread 0
= TMA producer, thread 32 = MMA issuer with tcgen05.cp of the scale factors, warps 4-7 = epilogue). What changes:
  * grid = min(CTAs, tiles); CTA b takes tiles b, b + grid, ... in tile.raster.grouped order, and the ring's K step
    g = i * k_tiles + kt counts on across its tiles (tile.ring.stage picks stage g % S of the shared buffers, the
    barriers and the scale factors' tensor-memory columns; tile.mbarrier.wait_parity waits on parity g / S);
  * two accumulators in tensor memory, acc[i % 2] for the CTA's i-th tile (a tile.ring.stage of two
    tile.tmem.buffers at columns 0 and tile_n): the MMA thread commits a finished tile to acc_full[i % 2], the
    epilogue waits for it, reads the accumulator (tcgen05.ld), arrives on acc_empty[i % 2] and converts and stores
    while the MMA thread already accumulates tile i + 1 into the other one; before reusing acc[b] the MMA thread
    waits on acc_empty[b] (phase parities from the tile count: (i / 2) % 2);
  * --cta-group 2: CTA pairs (clusters of 2) walk 256 x tile_n tiles, each CTA staging its 128 rows of A and half of
    B's rows, all loads completing on the even CTA's `full`, whose thread 32 issues M = 256 cta_group::2 MMAs and
    commits to both CTAs' barriers; the accumulators of both CTAs are released on the even CTA's acc_empty (count
    256: the 128 epilogue threads of each CTA, the odd CTA's arriving through mapa, tile.mbarrier.arrive with a
    CTA rank);
  * partial tiles: TMA loads past M, N or K are filled with zeros (elements and scale bytes alike: a zero product
    adds nothing), the TMA store of D is clipped at D's edges. SFA and SFB are the scales of the reference's
    definition (one per V = 32 / 16 consecutive k of a row) in gemm_reference.sf_atoms's image: rows padded to
    whole 128-row atoms and scale blocks to whole atoms of 4 with zero bytes; a last K tile's atoms past that
    image are TMA's zeros too, so the padded steps multiply zero elements by scale code 0. Alignment (TMA: global row strides of 16-byte
    multiples; whole scale blocks): K a multiple of 32 for both formats (mxfp8: 16-byte rows need K % 16, its
    scale blocks K % 32; nvfp4: two elements a byte, so K % 32), N a multiple of 8 (rows of bf16 D); at least one
    whole tile (M >= 128, N >= tile_n, K >= the K tile: a TMA box stays within its tensor).
Tensor memory holds 2 accumulators (2 tile_n columns) plus S stages of scale factors (mxfp8: 8 columns a stage,
nvfp4: 32), at most 512 columns, so tile_n is 128 (256 would need all 512 for the accumulators).
Only the builder's own integers reach the IR (no user strings).
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "python"))

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
from gemm_blockscaled import EPI_COLS, SMEM_LIMIT, _bar_t, _buf, _set_up, _sf_layouts, _staging, _store_staging, _swizzled  # noqa: E402
from gemm_reference import FORMATS, add_check_options, module_text, run_check  # noqa: E402

from tile_mlir.dialect import builders as tb  # noqa: E402
from tile_mlir.mlir import arith, ir  # noqa: E402

B200_SMS = 148
TMEM_COLUMNS = 512
K_ALIGN = 32  # elements: 16-byte rows for both formats and whole scale blocks (module docstring)


@dataclass(frozen=True)
class PersistentBlackwellConfig:
    """One kernel: the problem, the tiling and the schedule."""
    dtype: str  # mxfp8 | nvfp4
    m: int
    n: int
    k: int
    ctas: int = B200_SMS  # at most this many CTAs (one per multiprocessor)
    group_m: int = 8  # tile rows per raster group
    stages: int = 4
    tile_n: int = 128
    cta_group: int = 1  # 2: CTA pairs (clusters of 2) on 256 x tile_n tiles (docs/gemm-walkthrough.md §8)

    def __post_init__(self):
        if self.dtype not in FORMATS:
            raise ValueError(f"dtype must be one of {', '.join(FORMATS)}, got {self.dtype!r}")
        if min(self.m, self.n, self.k, self.ctas, self.group_m) < 1:
            raise ValueError("M, N, K, ctas and group_m must be positive")
        if self.tile_n not in (128, 256):
            raise ValueError(f"tile_n={self.tile_n}: 128 or 256 (whole scale atoms)")
        if self.stages < 2:
            raise ValueError("the ring needs at least 2 stages")
        if self.cta_group not in (1, 2):
            raise ValueError(f"cta_group={self.cta_group}: 1, or 2 (CTA pairs)")
        if self.ctas < self.cta_group:
            raise ValueError(f"ctas={self.ctas}: a CTA pair needs at least 2 CTAs")
        if self.tmem_used > TMEM_COLUMNS:
            raise ValueError(f"2 accumulators of {self.tile_n} columns + {self.stages} stages x {self.stage_cols} "
                             f"scale-factor columns = {self.tmem_used} exceed tensor memory's {TMEM_COLUMNS}: use "
                             "tile_n 128 or fewer stages")
        if self.k % K_ALIGN:
            raise ValueError(f"K={self.k} must be a multiple of {K_ALIGN} (TMA's 16-byte row strides and whole "
                             "scale blocks)")
        if self.m < self.tile_m or self.n < self.tile_n or self.k < self.tile_k or self.n % 8:
            raise ValueError(f"M={self.m}, N={self.n}, K={self.k}: at least one whole {self.tile_m} x {self.tile_n} x "
                             f"{self.tile_k} tile (a TMA box stays within its tensor), N a multiple of 8 (rows of D "
                             "of 16-byte multiples)")
        if self.smem_bytes > SMEM_LIMIT:
            raise ValueError(f"{self.stages} stages need {self.smem_bytes} bytes of shared memory, more than a CTA's "
                             f"{SMEM_LIMIT}: use fewer stages")

    @property
    def fmt(self):
        return FORMATS[self.dtype]

    tile_m = 128

    @property
    def tile_k(self) -> int:
        """One 128-byte swizzle row of K per stage."""
        return 1024 // self.fmt.elem_bits

    @property
    def atoms_k(self) -> int:
        """Scale atoms (4 scale blocks of K) per stage."""
        return self.tile_k // self.fmt.vec // 4

    @property
    def k_tiles(self) -> int:
        return -(-self.k // self.tile_k)

    @property
    def tiles(self) -> tuple[int, int]:
        """Output tiles (rows, columns): 128 x tile_n, or 256 x tile_n per CTA pair."""
        return -(-self.m // (self.tile_m * self.cta_group)), -(-self.n // self.tile_n)

    @property
    def units(self) -> int:
        """Tile walkers: CTAs, or CTA pairs; each takes tiles unit, unit + units, ..."""
        return min(self.ctas // self.cta_group, self.tiles[0] * self.tiles[1])

    @property
    def grid(self) -> tuple[int, int, int]:
        return (self.units * self.cta_group, 1, 1)

    @property
    def sf_cols(self) -> tuple[int, int]:
        """Tensor-memory columns of a stage's SFA and SFB (4 per atom of 128 rows)."""
        return 4 * self.atoms_k, 4 * self.atoms_k * self.tile_n // 128

    @property
    def stage_cols(self) -> int:
        return sum(self.sf_cols)

    @property
    def tmem_used(self) -> int:
        return 2 * self.tile_n + self.stages * self.stage_cols

    @property
    def tmem_cols(self) -> int:
        """The allocation: a power of two of at least 32 columns (tcgen05.alloc)."""
        return 1 << max(5, (self.tmem_used - 1).bit_length())

    @property
    def stage_bytes(self) -> int:
        """A CTA's TMA bytes a stage: A, its rows of B (whole boxes, zero-filled past the tensors) and the scale
        atoms (SFB for all of the tile's N in each CTA of a pair)."""
        return ((self.tile_m + self.tile_n // self.cta_group) * self.tile_k * self.fmt.elem_bits // 8
                + (1 + self.tile_n // 128) * self.atoms_k * 512)

    @property
    def smem_bytes(self) -> int:
        """The ring, the epilogue's bf16 tile of D, barriers; an upper bound (+ alignment padding)."""
        return self.stages * self.stage_bytes + self.tile_m * self.tile_n * 2 + 8 * (2 * self.stages + 6) + 4 + 1024

    @property
    def name(self) -> str:
        return f"gemm_persistent_{self.dtype}_{self.m}x{self.n}x{self.k}" + ("_pair" if self.cta_group == 2 else "")


# ------------------------------------------------------------------------------------------ building
def build(cfg: PersistentBlackwellConfig, context=None):
    """The tile IR module of cfg's kernel (in `context`, default a new tile_mlir context)."""
    from tile_mlir.frontend.context import make_context

    ctx = context or make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        _kernel(module, cfg)
    return module


def _cmp(pred: str, a, b):
    return arith.cmpi(getattr(arith.CmpIPredicate, pred), a, b)


def _kernel(module, cfg: PersistentBlackwellConfig) -> None:
    fmt = cfg.fmt
    elem, sf_elem = fmt.elem_mlir, fmt.scale_mlir
    bm, bn, bk, st, kt_n, ak = cfg.tile_m, cfg.tile_n, cfg.tile_k, cfg.stages, cfg.k_tiles, cfg.atoms_k
    cg = cfg.cta_group
    bnc = bn // cg  # rows of B a CTA stages (a pair's MMA reads the even CTA's first, then the odd's)
    nsf = bk // fmt.vec
    # A and B travel as bytes (TMA moves no 4-bit type); the MMA reads a stage through a tile.reinterpret view
    packed = fmt.elem_bits < 8
    g_elem, kb, kbytes = ("ui8", 128, cfg.k * fmt.elem_bits // 8) if packed else (elem, bk, cfg.k)
    mt, nt = -(-cfg.m // 128), -(-cfg.n // 128)
    atoms = -(-cfg.k // fmt.vec // 4)  # scale atoms of the whole K (gemm_reference.sf_atoms pads to whole atoms)
    params = {"A": _buf("global", (cfg.m, kbytes), g_elem), "B": _buf("global", (cfg.n, kbytes), g_elem),
              "SFA": _buf("global", (mt, atoms * 32, 16), "ui8"), "SFB": _buf("global", (nt, atoms * 32, 16), "ui8"),
              "D": _buf("global", (cfg.m, cfg.n), "bf16")}
    sa_t, sb_t = _swizzled(bm, kb, g_elem), _swizzled(bnc, kb, g_elem)
    va_t, vb_t = _swizzled(bm, bk, elem), _swizzled(bnc, bk, elem)
    sf_box = {"a": (1, ak * 32, 16), "b": (bn // 128, ak * 32, 16)}
    sf_raw_t = {n: _buf("shared", box, "ui8", f"S[({box[0]}, {box[1]}, 16) : ({box[1] * 16}, 16, 1)]", 128)
                for n, box in sf_box.items()}
    acc_t = _buf("tmem", (bm, bn), "f32", f"S[({bm}, {bn}) : (1@TLane, 1@TCol)]")
    regs_layout = f"S[(4, 32, {EPI_COLS}) : (1@warpid, 1@laneid, 1@reg)] + O[4@warpid]"
    bar_t = _bar_t()
    cluster = (2, 1, 1) if cg == 2 else None
    with tb.kernel(module, cfg.name, params, block=(256, 1, 1), grid=cfg.grid, cluster=cluster) as (kern, args):
        A, B, SFA, SFB, D = args
        c = tb.Constants(kern.regions[0].blocks[0])
        tb.tensor_map(A, (bm, kb), swizzle="128B")
        tb.tensor_map(B, (bnc, kb), swizzle="128B")
        tb.tensor_map(SFA, sf_box["a"], swizzle="none")
        tb.tensor_map(SFB, sf_box["b"], swizzle="none")
        tb.tensor_map(D, (bm, EPI_COLS), swizzle="128B")
        sa = [tb.alloc_shared(sa_t) for _ in range(st)]
        sb = [tb.alloc_shared(sb_t) for _ in range(st)]
        va = [tb.reinterpret(s, va_t) for s in sa] if packed else sa
        vb = [tb.reinterpret(s, vb_t) for s in sb] if packed else sb
        sf = {n: [tb.alloc_shared(sf_raw_t[n]) for _ in range(st)] for n in "ab"}
        sd = _staging(bm, bn)
        full = [tb.alloc_shared(bar_t) for _ in range(st)]
        empty = [tb.alloc_shared(bar_t) for _ in range(st)]
        acc_full = [tb.alloc_shared(bar_t) for _ in range(2)]
        acc_empty = [tb.alloc_shared(bar_t) for _ in range(2)]
        free, written = tb.alloc_shared(bar_t), tb.alloc_shared(bar_t)  # the staging tile sd's two barriers
        slot = tb.alloc_shared(_buf("shared", (1,), "i32"))
        tid, warp = tb.thread_id(), tb.warp_id()
        is_t0 = _cmp("eq", tid, c(0))
        is_mma_warp = _cmp("eq", warp, c(1))
        rank = tb.cta_rank() if cg == 2 else c(0)  # (a pair's even CTA, rank 0, arms `full` and issues the MMAs)
        is_leader = _cmp("eq", rank, c(0)) if cg == 2 else None
        # 1. set-up: warp 1 allocates tensor memory. full[s] = producer arrive + bytes; empty[s], acc_full[b] =
        #    tcgen05.commit of the MMA thread (a pair's: in both CTAs, multicast); acc_empty[b] = the arrives of
        #    the 128 epilogue threads (a pair's: of both CTAs, on the even CTA's barrier)
        # sd's barriers: `free` by the epilogue's leader (the last TMA store has read sd), `written` by every
        # epilogue thread (its rows of sd are written)
        _set_up(is_mma_warp, is_t0, slot, cfg.tmem_cols, cg,
                [(b, 1) for b in full + empty + acc_full] + [(b, 128 * cg) for b in acc_empty]
                + [(free, 1), (written, 128)])
        # tensor memory: acc[0], acc[1], then per stage SFA's and SFB's columns; buffers of one type each at
        # their col_offset, so that tile.ring.stage picks among them
        acc = [tb.tmem_buffer(slot, acc_t, col_offset=b * bn) for b in range(2)]
        tsf, vsf = {}, {}
        for n, rows, col0 in (("a", bm, 2 * bn), ("b", bn, 2 * bn + cfg.sf_cols[0])):
            smem_l, tmem_l = _sf_layouts(rows, nsf, 0)
            tmem_t = _buf("tmem", (rows, nsf), sf_elem, tmem_l)
            vsf_t = _buf("shared", (rows, nsf), sf_elem, smem_l, 128)
            tsf[n] = [tb.tmem_buffer(slot, tmem_t, col_offset=col0 + s * cfg.stage_cols) for s in range(st)]
            vsf[n] = [tb.reinterpret(sf[n][s], vsf_t) for s in range(st)]

        def ring(index, bufs):
            return tb.ring_stage(index, bufs, result_type=bufs[0].type)

        stage = lambda g: arith.remui(g, c(st))  # noqa: E731
        parity = lambda g: arith.divui(g, c(st))  # noqa: E731  (wait_parity reads bit 0)
        unit = arith.divui(tb.block_id("x"), c(cg))  # the CTA, or the CTA's pair
        n_tiles, units = c(cfg.tiles[0] * cfg.tiles[1]), c(cfg.units)

        def tiles():
            """The CTA's tile loop: yields (its count i of the unit's tiles, the tile's (row, col) block) inside it."""
            with tb.loop(unit, n_tiles, units) as tile:
                it = arith.divui(arith.subi(tile, unit), units)
                coords = tb.raster_grouped(tile, c(cfg.tiles[0]), c(cfg.tiles[1]), cfg.group_m)
                yield it, coords.row, coords.col

        def k_steps(it):
            """The tile's K loop: yields (kt, the ring's step g) inside it."""
            with tb.loop(c(0), c(kt_n), c(1)) as kt:
                yield kt, arith.addi(arith.muli(it, c(kt_n)), kt)

        # a pair's loads all complete on the even CTA's `full` (docs/tma.md §8), which counts both CTAs' bytes
        tma_attrs = {"cta_group": 2, "barrier_cta": "pair_leader"} if cg == 2 else {}
        with tb.when(is_t0):
            # 2. producer: K step g into stage g % S once the MMAs that read its last use are done; a CTA of a pair
            #    loads its 128 rows of A (atom row 2 row + rank of SFA) and its half of B's rows
            for it, mb, nb in tiles():
                am = arith.addi(arith.muli(mb, c(cg)), rank)
                m0, n0 = arith.muli(am, c(bm)), arith.muli(nb, c(bn))
                row0_b = arith.addi(n0, arith.muli(rank, c(bnc)))
                for kt, g in k_steps(it):
                    s = stage(g)
                    tb.mbarrier_wait_parity(ring(s, empty), arith.xori(parity(g), c(1)))
                    bar = ring(s, full)
                    if cg == 1:
                        tb.mbarrier_arrive_expect_tx(bar, cfg.stage_bytes)
                    else:
                        with tb.when(is_leader):
                            tb.mbarrier_arrive_expect_tx(bar, 2 * cfg.stage_bytes)
                    k0, r0 = arith.muli(kt, c(kb)), arith.muli(kt, c(ak * 32))
                    for dst, glob, offs, box in (
                            (sa, A, (m0, k0), (bm, kb)), (sb, B, (row0_b, k0), (bnc, kb)),
                            (sf["a"], SFA, (am, r0, c(0)), sf_box["a"]),
                            (sf["b"], SFB, (arith.muli(nb, c(bn // 128)), r0, c(0)), sf_box["b"])):
                        src = tb.subview(glob, list(offs), static_offsets=[-1] * len(offs), sizes=list(box))
                        tb.copy_async(ring(s, dst), src, bar, **tma_attrs)
        mask = 3 if cg == 2 else None  # a pair's commits reach both CTAs' barriers
        is_mma_thread = _cmp("eq", tid, c(32))
        with tb.when(arith.andi(is_mma_thread, is_leader) if cg == 2 else is_mma_thread):
            # 3. MMA issuer: tile i into acc[i % 2] once the epilogue has read that accumulator's last tile; per K
            #    step the stage's scale factors to tensor memory, the block-scaled MMAs, a commit freeing the stage;
            #    after the tile's last step a commit to acc_full[i % 2] (of a pair: the even CTA's thread 32)
            for it, _, _ in tiles():
                b = arith.andi(it, c(1))
                tb.mbarrier_wait_parity(ring(b, acc_empty), arith.xori(arith.divui(it, c(2)), c(1)))
                d = ring(b, acc)
                for kt, g in k_steps(it):
                    s = stage(g)
                    tb.mbarrier_wait_parity(ring(s, full), parity(g))
                    t = {n: ring(s, tsf[n]) for n in "ab"}
                    for n in "ab":
                        tb.copy_async(t[n], ring(s, vsf[n]), cta_group=cg)
                    tb.gemm_async_block_scale(d, ring(s, va), ring(s, vb), _cmp("ugt", kt, c(0)), t["a"], t["b"],
                                              cta_group=cg, scale_vec=fmt.vec)
                    tb.commit(ring(s, empty), cg, mask)
                tb.commit(ring(b, acc_full), cg, mask)
        with tb.when(_cmp("uge", warp, c(4))):
            _epilogue(cfg, c, tiles, ring, tid, rank, acc, acc_full, acc_empty, sd, free, written, D, regs_layout)
        tb.fence("tcgen05_before_sync")
        tb.barrier()
        if cg == 2:  # neither CTA frees tensor memory or exits while its peer may still signal it
            tb.barrier("cluster")
        with tb.when(is_mma_warp):  # every MMA completed (the epilogue saw each tile's acc_full)
            tb.fence("tcgen05_after_sync")
            tb.tmem_relinquish(cg)
            tb.tmem_dealloc(slot, cfg.tmem_cols, cg)
        tb.ret()


def _epilogue(cfg, c, tiles, ring, tid, rank, acc, acc_full, acc_empty, sd, free, written, D, regs_layout):
    """Warps 4-7 (warp w reads lane quarter w % 4: rows 32 (w - 4) ..) of each CTA, on its 128 rows: per tile
    wait acc_full, tcgen05.ld in slices of EPI_COLS columns, bf16, into the staging tile sd; arrive acc_empty
    (the MMA thread may overwrite the accumulator; a pair's on the even CTA's barrier), then the leader stores sd with TMA (clipped at D's edges) and the warps go on to the next
    tile while the copy engine writes. sd is rewritten only once the leader has seen the last store's reads done
    (bulk_wait read) and said so on `free`; both sd barriers complete once a tile (parity: the tile count)."""
    bm, bn = cfg.tile_m, cfg.tile_n
    leader = _cmp("eq", tid, c(128))
    racc = tb.alloc_reg(_buf("reg", (bm, EPI_COLS), "f32", regs_layout))
    rout = tb.alloc_reg(_buf("reg", (bm, EPI_COLS), "bf16", regs_layout))
    for it, mb, nb in tiles():
        b = arith.andi(it, c(1))
        tb.mbarrier_wait_parity(ring(b, acc_full), arith.divui(it, c(2)))
        tb.fence("tcgen05_after_sync")
        with tb.when(leader):
            tb.bulk_wait(0, kind="read")
            tb.mbarrier_arrive(free)
        tb.mbarrier_wait_parity(free, it)
        src = ring(b, acc)
        for c0 in range(0, bn, EPI_COLS):  # column slices: 64 registers a thread at a time
            cols = [(0, bm), (c0, c0 + EPI_COLS)]
            tb.copy_async(racc, src, scope="warpgroup", src_region=cols)
            tb.convert(rout, racc, "rn")
            tb.copy(sd[c0 // EPI_COLS], rout, scope="warpgroup")
        tb.fence("tcgen05_before_sync")  # (the tcgen05.ld waits come before the arrive)
        if cfg.cta_group == 2:  # (mapa + a .shared::cluster arrive, also from the even CTA itself)
            tb.mbarrier_arrive(ring(b, acc_empty), c(0))
        else:
            tb.mbarrier_arrive(ring(b, acc_empty))
        tb.fence("proxy_async")  # generic-proxy stores that the copy engine reads
        tb.mbarrier_arrive(written)
        with tb.when(leader):
            tb.mbarrier_wait_parity(written, it)
            m0 = arith.muli(arith.addi(arith.muli(mb, c(cfg.cta_group)), rank), c(bm))
            n0 = arith.muli(nb, c(bn))
            _store_staging(D, sd, m0, n0, bm, c)
    with tb.when(leader):  # the last store reads shared memory: the CTA stays until it has
        tb.bulk_wait(0, kind="all")


# ------------------------------------------------------------------------------------------ checking
def operands(cfg: PersistentBlackwellConfig, seed: int = 0) -> dict:
    """Random inputs by parameter name as the kernel takes them (e2m1 packed, scale factors as 128x4 atoms:
    gemm_reference.sf_atoms), plus the logical operands under "logical"."""
    from gemm_reference import operand_bytes, random_blockscaled, sf_atoms
    a, sfa, b, sfb = random_blockscaled(cfg.fmt, cfg.m, cfg.n, cfg.k, seed=seed)
    return {"A": operand_bytes(a, cfg.fmt), "B": operand_bytes(b, cfg.fmt),
            "SFA": sf_atoms(sfa).reshape(-(-cfg.m // 128), -1, 16),
            "SFB": sf_atoms(sfb).reshape(-(-cfg.n // 128), -1, 16), "logical": (a, sfa, b, sfb)}


def padded_logical(cfg: PersistentBlackwellConfig, logical):
    """The logical operands over K padded with zeros to whole K tiles (TMA's fill: elements and scale bytes 0; a
    scale of 2^-127 or 0 times a zero element adds nothing but keeps the chain's steps)."""
    a, sfa, b, sfb = logical
    kp = cfg.k_tiles * cfg.tile_k
    pad = lambda x, cols: np.pad(x, ((0, 0), (0, cols - x.shape[1])))  # noqa: E731  (zeros of x's dtype)
    return pad(a, kp), pad(sfa, kp // cfg.fmt.vec), pad(b, kp), pad(sfb, kp // cfg.fmt.vec)


def expected(cfg: PersistentBlackwellConfig, logical) -> np.ndarray:
    """D as the kernel computes it: MMA-Sim's Blackwell model of its MMA chain over K padded to whole K tiles
    (padded_logical), bf16."""
    import gemm_reference as ref
    return ref.to_bf16(ref.mmasim_blockscaled(*padded_logical(cfg, logical), cfg.fmt))


def run(cfg: PersistentBlackwellConfig, seed: int = 0, backend: str = "sim"):
    """(D, logical operands) of cfg's kernel on random operands through tile_mlir.jit."""
    import tile_mlir

    args = operands(cfg, seed)
    d = np.zeros((cfg.m, cfg.n), ml_dtypes.bfloat16)
    tile_mlir.jit(build(cfg), arch="sm_100a", backend=backend)(*[args[n] for n in ("A", "B", "SFA", "SFB")], d)
    return d, args["logical"]


def main(argv=None) -> int:
    from example_cli import MAX_EXTENT, int_in, run_main

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dtype", choices=sorted(FORMATS), default="mxfp8")
    p.add_argument("-M", type=int_in(1, MAX_EXTENT), default=300)
    p.add_argument("-N", type=int_in(1, MAX_EXTENT), default=264)
    p.add_argument("-K", type=int_in(1, MAX_EXTENT), default=416)
    p.add_argument("--ctas", type=int_in(1, 65535), default=B200_SMS, help="at most this many CTAs (the GPU's SMs)")
    p.add_argument("--group-m", type=int_in(1, 65536), default=8)
    p.add_argument("--stages", type=int_in(0, 64), default=4)
    p.add_argument("--tile-n", type=int_in(1, 256), default=128)
    p.add_argument("--cta-group", type=int, choices=(1, 2), default=1, help="2 = CTA pairs issuing M = 256 MMAs")
    p.add_argument("--ptx", action="store_true", help="compile and print the PTX instead of the tile IR")
    p.add_argument("--run", choices=("sim", "gpu"), help="run on random operands and compare D bit for bit with "
                   "the exact model of MMA-Sim's arithmetic, itself checked against MMA-Sim on sampled tiles")
    add_check_options(p)
    args = p.parse_args(argv)
    return run_main(p, lambda: _main(p, args))


def _main(p, args) -> int:
    try:
        cfg = PersistentBlackwellConfig(args.dtype, args.M, args.N, args.K, ctas=args.ctas, group_m=args.group_m,
                                        stages=args.stages, tile_n=args.tile_n, cta_group=args.cta_group)
    except ValueError as e:
        p.error(str(e))
    if args.run:
        d, logical = run(cfg, backend=args.run)
        return run_check(f"{cfg.name} ({cfg.grid[0]} CTAs, {cfg.tiles[0] * cfg.tiles[1]} tiles) on {args.run}",
                         d, padded_logical(cfg, logical), cfg.fmt, args)
    print(module_text(build(cfg), "sm_100a", cfg.name, args.ptx))
    return 0


if __name__ == "__main__":
    sys.exit(main())
