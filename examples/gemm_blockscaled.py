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
Only the builder's own integers and choices reach the IR text (no user strings).
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
from gemm_reference import FORMATS  # noqa: E402

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


# ------------------------------------------------------------------------------------------- IR text
class _Text:
    """Indented MLIR text; the i32 constants it uses are hoisted to the top of the kernel body."""

    def __init__(self):
        self.lines: list[str] = []
        self.depth = 1
        self.consts: dict[int, str] = {}

    def __call__(self, line: str) -> None:
        self.lines.append("  " * self.depth + line)

    def c(self, value: int) -> str:
        """An i32 constant, made once at the top of the kernel body."""
        return self.consts.setdefault(value, f"%c{value}")

    @contextmanager
    def block(self, head: str):
        """`head {` ... `}`; head "else" continues the scf.if just closed (`} else {`)."""
        if head == "else":
            assert self.lines[-1] == "  " * self.depth + "}"
            self.lines[-1] += " else {"
        else:
            self(head + " {")
        self.depth += 1
        yield
        self.depth -= 1
        self("}")

    def body(self) -> str:
        consts = [f"  {n} = arith.constant {v} : i32" for v, n in sorted(self.consts.items())]
        return "\n".join(consts + self.lines)


def _arith(t: _Text, name: str, op: str, a: str, b: str) -> str:
    t(f"%{name} = arith.{op} {a}, {b} : i32")
    return f"%{name}"


def _cmp(t: _Text, name: str, pred: str, a: str, b: str) -> str:
    t(f"%{name} = arith.cmpi {pred}, {a}, {b} : i32")
    return f"%{name}"


def _buf(scope: str, shape, elem: str, layout: str | None = None, align: int | None = None) -> str:
    dims = "x".join(str(d) for d in shape)
    extra = (f', "{layout}"' if layout else "") + (f", align {align}" if align else "")
    return f"!tile.buffer<{scope}, {dims}x{elem}{extra}>"


def _global_tile(t: _Text, name: str, buf: str, buf_t: str, offsets, shape, elem: str, full_shape):
    """A window of `shape` elements of the row-major global buffer `buf` (of full_shape) at SSA offsets
    (one per dim), keeping its strides: TMA adds the offsets to its coordinates, tile.copy to its address."""
    strides = [math.prod(full_shape[d + 1:]) for d in range(len(full_shape))]
    out_t = _buf("global", shape, elem, f"S[({', '.join(map(str, shape))}) : ({', '.join(map(str, strides))})]")
    dyn = ", ".join("-1" for _ in offsets)
    t(f'%{name} = "tile.subview"({buf}, {", ".join(offsets)}) {{static_offsets = array<i64: {dyn}>, '
      f'sizes = array<i64: {", ".join(str(d) for d in shape)}>}} : ({buf_t}, {", ".join("i32" for _ in offsets)})'
      f" -> {out_t}")
    return f"%{name}", out_t


def _tensor_map(t: _Text, buf: str, buf_t: str, box, swizzle: bool = False) -> None:
    """The TMA tensor map of a kernel buffer (a grid-constant parameter the runtime encodes at launch)."""
    sw = ', swizzle = "128B"' if swizzle else ""
    t(f'%map_{buf[1:].lower()} = "tile.tensor_map"({buf}) {{box = array<i64: {", ".join(map(str, box))}>{sw}}} : '
      f"({buf_t}) -> !tile.tensormap")


def _swizzled(rows: int, cols: int, elem: str) -> str:
    """A tile as TMA writes a box with 128B swizzle: rows of 128 bytes (cols elements), atoms of 8 rows on the
    absolute address, hence 1024-byte aligned."""
    return _buf("shared", (rows, cols), elem, f"Swizzle<128B> o S[({rows}, {cols}) : ({cols}, 1)]", 1024)


class _Pipeline:
    """The ring's schedule: K step kt = trip * 2S + j uses stage j % S and waits for mbarrier phase
    (j // S) % 2 -- static in the unrolled body, so stages and barriers are separate static buffers and no
    address is computed at run time. A step past the last K tile (K tiles not a multiple of 2S) is skipped."""

    def __init__(self, t: _Text, cfg: GemmConfig, tag: str):
        self.t, self.cfg, self.tag = t, cfg, tag
        self.unroll = 2 * cfg.stages

    @contextmanager
    def steps(self):
        """Yields, once per unrolled step, (j, stage, phase, kt value) with the insertion point inside it."""
        t, cfg, tag = self.t, self.cfg, self.tag
        trips = -(-cfg.k_tiles // self.unroll)
        with t.block(f"scf.for %trip{tag} = {t.c(0)} to {t.c(trips)} step {t.c(1)} : i32"):
            base = _arith(t, f"kbase{tag}", "muli", f"%trip{tag}", t.c(self.unroll))

            def gen():
                for j in range(self.unroll):
                    kt = _arith(t, f"kt{tag}_{j}", "addi", base, t.c(j))
                    if cfg.k_tiles % self.unroll:
                        with t.block(f"scf.if {_cmp(t, f'live{tag}_{j}', 'ult', kt, t.c(cfg.k_tiles))}"):
                            yield j, j % cfg.stages, (j // cfg.stages) % 2, kt
                    else:
                        yield j, j % cfg.stages, (j // cfg.stages) % 2, kt
            yield gen()


def _wait(t: _Text, bar: str, phase: int) -> None:
    t(f'"tile.mbarrier.wait"({bar}) {{phase = {phase}}} : ({BAR_T}) -> ()')


BAR_T = "!tile.buffer<shared, 1xi64>"
EPI_COLS = 64  # accumulator columns a Blackwell epilogue thread holds at a time (tcgen05.ld.32x32b.x64)


# ---------------------------------------------------------------------------------------- Hopper twin
def _wgmma_acc_layout(n: int, warp0: int) -> str:
    """The wgmma m64nNk16 accumulator fragment (../shared/mma-tma-reference.md §3.4) of the warpgroup whose
    first warp is warp0: row = 16 w + l / 4 + 8 ((v >> 1) & 1), col = 8 (v / 4) + 2 (l % 4) + (v & 1)."""
    return (f"S[(4, 2, 8, {n // 8}, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]"
            + (f" + O[{warp0}@warpid]" if warp0 else ""))


def hopper_ir(cfg: GemmConfig) -> str:
    elem, size = DENSE[cfg.dtype]
    bm, bn, bk, st = cfg.tile_m, cfg.tile_n, cfg.tile_k, cfg.stages
    a_t = _buf("global", (cfg.m, cfg.k), elem)
    b_t = _buf("global", (cfg.n, cfg.k), elem)
    d_t = _buf("global", (cfg.m, cfg.n), "bf16")
    sa_t, sb_t = _swizzled(bm, bk, elem), _swizzled(bn, bk, elem)
    t = _Text()
    _tensor_map(t, "%A", a_t, (bm, bk), swizzle=True)
    _tensor_map(t, "%B", b_t, (bn, bk), swizzle=True)
    for s in range(st):
        t(f'%sa{s} = "tile.alloc_shared"() : () -> {sa_t}')
        t(f'%sb{s} = "tile.alloc_shared"() : () -> {sb_t}')
    for s in range(st):
        t(f'%full{s} = "tile.alloc_shared"() : () -> {BAR_T}')
        t(f'%empty{s} = "tile.alloc_shared"() : () -> {BAR_T}')
    t('%tid = "tile.thread_id"() : () -> i32')
    t('%warp = "tile.warp_id"() : () -> i32')
    is_t0 = _cmp(t, "is_thread0", "eq", "%tid", t.c(0))
    # 1. full[s]: the producer's arrive + the stage's TMA bytes; empty[s]: one arrive per consumer warpgroup
    with t.block(f"scf.if {is_t0}"):
        for s in range(st):
            t(f'"tile.mbarrier.init"(%full{s}) {{count = 1}} : ({BAR_T}) -> ()')
            t(f'"tile.mbarrier.init"(%empty{s}) {{count = 2}} : ({BAR_T}) -> ()')
        t('"tile.fence"() {kind = "mbarrier_init"} : () -> ()')
    t('"tile.barrier"() : () -> ()')
    t('%bx = "tile.block_id"() {dim = "x"} : () -> i32')
    t('%by = "tile.block_id"() {dim = "y"} : () -> i32')
    m0 = _arith(t, "m0", "muli", "%by", t.c(bm))
    n0 = _arith(t, "n0", "muli", "%bx", t.c(bn))
    wg = _arith(t, "wg", "divui", "%warp", t.c(4))
    with t.block(f"scf.if {_cmp(t, 'is_producer', 'eq', wg, t.c(0))}"):
        # 2. producer: one thread; K step kt into its stage once both consumers released the stage's last use
        with t.block(f"scf.if {is_t0}"):
            with _Pipeline(t, cfg, "p").steps() as steps:
                for j, s, phase, kt in steps:
                    _wait(t, f"%empty{s}", 1 - phase)  # (the first pass finds every stage free)
                    t(f'"tile.mbarrier.arrive_expect_tx"(%full{s}) {{bytes = {(bm + bn) * bk * size}}} : ({BAR_T}) -> ()')
                    k0 = _arith(t, f"k0_{j}", "muli", kt, t.c(bk))
                    for name, glob, glob_t, row0, dst_t in (("a", "%A", a_t, m0, sa_t), ("b", "%B", b_t, n0, sb_t)):
                        rows = bm if name == "a" else bn
                        src, src_t = _global_tile(t, f"g{name}{j}", glob, glob_t, (row0, k0), (rows, bk), elem,
                                                  (cfg.m if name == "a" else cfg.n, cfg.k))
                        t(f'"tile.copy_async"(%s{name}{s}, {src}, %full{s}) : ({dst_t}, {src_t}, {BAR_T}) -> ()')
    with t.block("else"):
        for c in (1, 2):  # 3. consumers: warpgroup c computes rows 64 (c - 1) .. 64 c - 1 of the tile
            with t.block(f"scf.if {_cmp(t, f'is_wg{c}', 'eq', wg, t.c(c))}"):
                _hopper_consumer(t, cfg, c, elem, sa_t, sb_t, m0, n0, d_t)
    t('"tile.return"() : () -> ()')
    return _kernel_text(cfg, [("A", a_t), ("B", b_t), ("D", d_t)], t, block=384)


def _hopper_consumer(t, cfg, c, elem, sa_t, sb_t, m0, n0, d_t):
    bn, bk, st = cfg.tile_n, cfg.tile_k, cfg.stages
    acc_t = _buf("reg", (64, bn), "f32", _wgmma_acc_layout(bn, 4 * c))
    out_t = _buf("reg", (64, bn), "bf16", _wgmma_acc_layout(bn, 4 * c))
    rows = f"array<i64: {64 * (c - 1)}, 0>, a_sizes = array<i64: 64, {bk}>"
    t(f'%acc{c} = "tile.alloc_reg"() : () -> {acc_t}')
    leader = _cmp(t, f"leader{c}", "eq", "%tid", t.c(128 * c))
    with _Pipeline(t, cfg, f"c{c}").steps() as steps:
        for j, s, phase, kt in steps:
            _wait(t, f"%full{s}", phase)
            accumulate = _cmp(t, f"accum{c}_{j}", "ugt", kt, t.c(0))
            t(f'"tile.gemm_async"(%acc{c}, %sa{s}, %sb{s}, {accumulate}) {{scope = "warpgroup", a_offsets = {rows}}}'
              f" : ({acc_t}, {sa_t}, {sb_t}, i1) -> ()")
            # once at most this step's wgmmas are pending, the previous step's stage is free again
            t('"tile.gemm_wait"() {pending = 1} : () -> ()')
            with t.block(f"scf.if {accumulate}"):
                with t.block(f"scf.if {leader}"):
                    t(f'"tile.mbarrier.arrive"(%empty{(s - 1) % st}) : ({BAR_T}) -> ()')
    t('"tile.gemm_wait"() {pending = 0} : () -> ()')
    t(f'%out{c} = "tile.alloc_reg"() : () -> {out_t}')
    t(f'"tile.convert"(%out{c}, %acc{c}) {{rounding = "rn"}} : ({out_t}, {acc_t}) -> ()')
    row = _arith(t, f"row{c}", "addi", m0, t.c(64 * (c - 1)))
    dst, dst_t = _global_tile(t, f"d{c}", "%D", d_t, (row, n0), (64, bn), "bf16", (cfg.m, cfg.n))
    t(f'"tile.copy"({dst}, %out{c}) {{scope = "warpgroup"}} : ({dst_t}, {out_t}) -> ()')


# ------------------------------------------------------------------------------------------ Blackwell
def _sf_layouts(rows: int, nsf: int, col0: int) -> tuple[str, str]:
    """The scale factors of `rows` rows x nsf blocks of one stage: (shared, tmem) layouts of the logical
    rows x nsf matrix. Shared: the 128x4 atoms as TMA copied them (rows of atoms am, then K atoms kq; byte of
    (r, kb) at am*AK*512 + kq*512 + (r%32)*16 + (r/32%4)*4 + kb%4). Tmem (../shared/mma-tma-reference.md §2.5):
    row r at lane r%32 of every lane quarter, column col0 + kq*(4 AM) + am*4 + r/32%4, byte kb%4; one
    tcgen05.cp.32x128b.warpx4 per atom."""
    am, ak = rows // 128, nsf // 4
    smem = f"S[({am}, 4, 32, {ak}, 4) : ({ak * 512}, 4, 16, 512, 1)]"
    tmem = (f"S[({am}, 4, 32, {ak}, 4) : (16@TCol, 4@TCol, 1@TLane, {16 * am}@TCol, 1@TCol)]"
            + (f" + O[{4 * col0}@TCol]" if col0 else "") + " + R[4 : 32@TLane]")
    return smem, tmem


def blackwell_ir(cfg: GemmConfig) -> str:
    fmt = FORMATS[cfg.dtype]
    elem = {"e4m3": "f8E4M3FN", "e2m1": "f4E2M1FN"}[fmt.elem_ptx]
    sf_elem = "f8E8M0FNU" if fmt.scale_ptx == "ue8m0" else "f8E4M3FN"
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
    t = _Text()
    _tensor_map(t, "%A", a_t, (bm, kb), swizzle=True)
    _tensor_map(t, "%B", b_t, (bnc, kb), swizzle=True)
    _tensor_map(t, "%SFA", sfa_t, sf_box["a"])
    _tensor_map(t, "%SFB", sfb_t, sf_box["b"])
    _tensor_map(t, "%D", d_t, (bm, bn))
    for s in range(st):
        t(f'%sa{s} = "tile.alloc_shared"() : () -> {sa_t}')
        t(f'%sb{s} = "tile.alloc_shared"() : () -> {sb_t}')
        if packed:
            t(f'%va{s} = "tile.reinterpret"(%sa{s}) : ({sa_t}) -> {va_t}')
            t(f'%vb{s} = "tile.reinterpret"(%sb{s}) : ({sb_t}) -> {vb_t}')
        for n in "ab":
            t(f'%sf{n}{s} = "tile.alloc_shared"() : () -> {sf_raw_t[n]}')
    sd_t = _buf("shared", (bm, bn), "bf16", f"S[({bm}, {bn}) : ({bn}, 1)]", 1024)
    t(f'%sd = "tile.alloc_shared"() : () -> {sd_t}')
    for s in range(st):
        t(f'%full{s} = "tile.alloc_shared"() : () -> {BAR_T}')
        t(f'%empty{s} = "tile.alloc_shared"() : () -> {BAR_T}')
    t(f'%done = "tile.alloc_shared"() : () -> {BAR_T}')
    slot_t = _buf("shared", (1,), "i32")
    t(f'%slot = "tile.alloc_shared"() : () -> {slot_t}')
    t('%tid = "tile.thread_id"() : () -> i32')
    t('%warp = "tile.warp_id"() : () -> i32')
    is_t0 = _cmp(t, "is_thread0", "eq", "%tid", t.c(0))
    if cg == 2:  # the pair's even CTA (rank 0 of the cluster of 2) arms `full` and issues the MMAs
        t('%rank = "tile.cta_rank"() : () -> i32')
        is_leader = _cmp(t, "is_leader", "eq", "%rank", t.c(0))
    is_mma_warp = _cmp(t, "is_mma_warp", "eq", "%warp", t.c(1))
    # 1. set-up: warp 1 allocates tensor memory; full[s] = producer arrive + bytes, empty[s] and done =
    #    tcgen05.commit of the MMA thread
    with t.block(f"scf.if {is_mma_warp}"):
        t(f'"tile.tmem.alloc"(%slot) {{num_cols = {tmem_cols}, cta_group = {cg}}} : ({slot_t}) -> ()')
    with t.block(f"scf.if {is_t0}"):
        for s in range(st):
            t(f'"tile.mbarrier.init"(%full{s}) {{count = 1}} : ({BAR_T}) -> ()')
            t(f'"tile.mbarrier.init"(%empty{s}) {{count = 1}} : ({BAR_T}) -> ()')
        t(f'"tile.mbarrier.init"(%done) {{count = 1}} : ({BAR_T}) -> ()')
        t('"tile.fence"() {kind = "mbarrier_init"} : () -> ()')
    t('"tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()')
    t('"tile.barrier"() : () -> ()')
    if cg == 2:  # the peer's barriers initialised and its tensor memory allocated before either uses them
        t('"tile.barrier"() {scope = "cluster"} : () -> ()')
    t('"tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()')
    t(f'%acc = "tile.tmem.buffer"(%slot) : ({slot_t}) -> {acc_t}')
    sf_tmem = {}
    for s in range(st):
        for n, rows, col in (("a", bm, bn + s * stage_cols), ("b", bn, bn + s * stage_cols + sf_cols["a"])):
            smem_l, tmem_l = _sf_layouts(rows, nsf, col)
            view_t = _buf("shared", (rows, nsf), sf_elem, smem_l, 128)
            tm_t = _buf("tmem", (rows, nsf), sf_elem, tmem_l)
            t(f'%tsf{n}{s} = "tile.tmem.buffer"(%slot) : ({slot_t}) -> {tm_t}')
            t(f'%vsf{n}{s} = "tile.reinterpret"(%sf{n}{s}) : ({sf_raw_t[n]}) -> {view_t}')
            sf_tmem[n, s] = (tm_t, view_t)
    t('%bx = "tile.block_id"() {dim = "x"} : () -> i32')
    t('%by = "tile.block_id"() {dim = "y"} : () -> i32')
    if cg == 1:
        m_blk, n_blk = "%by", "%bx"
        m0 = _arith(t, "m0", "muli", "%by", t.c(bm))
        n0 = row0_b = _arith(t, "n0", "muli", "%bx", t.c(bn))
    else:  # block x = the CTA's 128-row half of the pair's 256 rows; its half of B's rows
        m_blk, n_blk = "%bx", "%by"
        m0 = _arith(t, "m0", "muli", "%bx", t.c(bm))
        n0 = _arith(t, "n0", "muli", "%by", t.c(bn))
        row0_b = _arith(t, "row0_b", "addi", n0, _arith(t, "half_b", "muli", "%rank", t.c(bnc)))
    nb0 = _arith(t, "nb0", "muli", n_blk, t.c(bn // 128))
    # a pair's loads all complete on the even CTA's `full` (docs/tma.md §8), which counts both CTAs' bytes
    tma_attrs = ' {cta_group = 2, barrier_cta = "pair_leader"}' if cg == 2 else ""
    with t.block(f"scf.if {is_t0}"):
        # 2. producer (thread 0): A, B and their scale atoms of K step kt into stage kt % stages
        with _Pipeline(t, cfg, "p").steps() as steps:
            for j, s, phase, kt in steps:
                _wait(t, f"%empty{s}", 1 - phase)
                arm = f'"tile.mbarrier.arrive_expect_tx"(%full{s}) {{bytes = {cg * stage_bytes}}} : ({BAR_T}) -> ()'
                if cg == 1:
                    t(arm)
                else:
                    with t.block(f"scf.if {is_leader}"):
                        t(arm)
                k0 = _arith(t, f"k0_{j}", "muli", kt, t.c(kb))
                r0 = _arith(t, f"r0_{j}", "muli", kt, t.c(ak * 32))
                for dst, dst_t, glob, glob_t, offs, shape, el, full in (
                        (f"%sa{s}", sa_t, "%A", a_t, (m0, k0), (bm, kb), g_elem, (cfg.m, kbytes)),
                        (f"%sb{s}", sb_t, "%B", b_t, (row0_b, k0), (bnc, kb), g_elem, (cfg.n, kbytes)),
                        (f"%sfa{s}", sf_raw_t["a"], "%SFA", sfa_t, (m_blk, r0, t.c(0)), sf_box["a"], "ui8",
                         (mt, kt4 * 32, 16)),
                        (f"%sfb{s}", sf_raw_t["b"], "%SFB", sfb_t, (nb0, r0, t.c(0)), sf_box["b"], "ui8",
                         (nt, kt4 * 32, 16))):
                    src, src_t = _global_tile(t, f"g{glob[1:].lower()}{j}", glob, glob_t, offs, shape, el, full)
                    t(f'"tile.copy_async"({dst}, {src}, %full{s}){tma_attrs} : ({dst_t}, {src_t}, {BAR_T}) -> ()')
    is_mma_thread = _cmp(t, "is_mma_thread", "eq", "%tid", t.c(32))
    if cg == 2:
        t(f"%is_mma_issuer = arith.andi {is_mma_thread}, {is_leader} : i1")
        is_mma_thread = "%is_mma_issuer"
    with t.block(f"scf.if {is_mma_thread}"):
        # 3. MMA issuer (thread 32; of a pair, the even CTA's): scale factors to tensor memory, then the
        #    block-scaled MMAs of the stage; the commit frees the stage once they (and the copies) are done
        #    (a pair's: in both CTAs, multicast)
        with _Pipeline(t, cfg, "m").steps() as steps:
            for j, s, phase, kt in steps:
                _wait(t, f"%full{s}", phase)
                for n in "ab":
                    tm_t, view_t = sf_tmem[n, s]
                    t(f'"tile.copy_async"(%tsf{n}{s}, %vsf{n}{s}) {{cta_group = {cg}}} : ({tm_t}, {view_t}) -> ()')
                accumulate = _cmp(t, f"accum_{j}", "ugt", kt, t.c(0))
                a, b = (f"%va{s}", f"%vb{s}") if packed else (f"%sa{s}", f"%sb{s}")
                t(f'"tile.gemm_async.block_scale"(%acc, {a}, {b}, {accumulate}, %tsfa{s}, %tsfb{s}) '
                  f'{{scale_vec = {fmt.vec}, cta_group = {cg}}} : ({acc_t}, {va_t}, {vb_t}, i1, '
                  f"{sf_tmem['a', s][0]}, {sf_tmem['b', s][0]}) -> ()")
                # the last step's MMAs (the last writers of D) complete on `done`, which the epilogue waits
                # for; every other step's free its stage
                commit = f"cta_group = {cg}" + (", multicast_mask = 3" if cg == 2 else "")
                with t.block(f"scf.if {_cmp(t, f'last_{j}', 'eq', kt, t.c(cfg.k_tiles - 1))}"):
                    t(f'"tile.commit"(%done) {{{commit}}} : ({BAR_T}) -> ()')
                with t.block("else"):
                    t(f'"tile.commit"(%empty{s}) {{{commit}}} : ({BAR_T}) -> ()')
    is_epi = _cmp(t, "is_epilogue", "uge", "%warp", t.c(4))
    with t.block(f"scf.if {is_epi}"):
        # 4. epilogue (warps 4-7: warp w reaches lane quarter w % 4 = rows 32 (w - 4) ..): tmem -> registers -> bf16 -> shared
        _wait(t, "%done", 0)
        t('"tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()')
        r_t = _buf("reg", (bm, EPI_COLS), "f32", regs_layout)
        o_t = _buf("reg", (bm, EPI_COLS), "bf16", regs_layout)
        t(f'%racc = "tile.alloc_reg"() : () -> {r_t}')
        t(f'%rout = "tile.alloc_reg"() : () -> {o_t}')
        for c0 in range(0, bn, EPI_COLS):  # column slices: 64 registers a thread at a time
            cols = f"array<i64: 0, {c0}>, src_sizes = array<i64: {bm}, {EPI_COLS}>"
            t(f'"tile.copy_async"(%racc, %acc) {{scope = "warpgroup", src_offsets = {cols}}} : ({r_t}, {acc_t}) -> ()')
            t(f'"tile.convert"(%rout, %racc) {{rounding = "rn"}} : ({o_t}, {r_t}) -> ()')
            t(f'"tile.copy"(%sd, %rout) {{scope = "warpgroup", dst_offsets = array<i64: 0, {c0}>, '
              f"dst_sizes = array<i64: {bm}, {EPI_COLS}>}} : ({sd_t}, {o_t}) -> ()")
    t('"tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()')
    t('"tile.barrier"() : () -> ()')
    if cg == 2:  # neither CTA frees tensor memory or exits while its peer may still signal it
        t('"tile.barrier"() {scope = "cluster"} : () -> ()')
    # 5. one thread stores the tile with TMA (clipped at the tensor's edge) and waits for it; warp 1 frees
    #    tensor memory
    with t.block(f"scf.if {is_t0}"):
        dst, dst_t = _global_tile(t, "gd", "%D", d_t, (m0, n0), (bm, bn), "bf16", (cfg.m, cfg.n))
        t(f'"tile.copy_async"({dst}, %sd) : ({dst_t}, {sd_t}) -> ()')
        t('"tile.bulk_wait"() {pending = 0, kind = "all"} : () -> ()')
    with t.block(f"scf.if {is_mma_warp}"):
        t('"tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()')
        t(f'"tile.tmem.relinquish"() {{cta_group = {cg}}} : () -> ()')
        t(f'"tile.tmem.dealloc"(%slot) {{num_cols = {tmem_cols}, cta_group = {cg}}} : ({slot_t}) -> ()')
    t('"tile.return"() : () -> ()')
    params = [("A", a_t), ("B", b_t), ("SFA", sfa_t), ("SFB", sfb_t), ("D", d_t)]
    return _kernel_text(cfg, params, t, block=256, cluster=(2, 1, 1) if cg == 2 else None)


def _kernel_text(cfg: GemmConfig, params, t: _Text, block: int, cluster=None) -> str:
    args = ", ".join(f"%{n}: {ty}" for n, ty in params)
    gx, gy, gz = cfg.grid
    extra = f", cluster = array<i32: {cluster[0]}, {cluster[1]}, {cluster[2]}>" if cluster else ""
    return ('"tile.kernel"() ({\n'
            f"^bb0({args}):\n{t.body()}\n"
            f'}}) {{sym_name = "{cfg.name}", block = array<i32: {block}, 1, 1>, '
            f"grid = array<i32: {gx}, {gy}, {gz}>{extra}}} : () -> ()\n")


def build(cfg: GemmConfig) -> str:
    """The tile IR text of cfg's kernel."""
    return hopper_ir(cfg) if cfg.target == "sm_90a" else blackwell_ir(cfg)


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


def run(cfg: GemmConfig, seed: int = 0, backend: str = "sim"):
    """(D, logical operands): cfg's kernel run through tile_mlir.jit on random operands."""
    import tile_mlir

    args = operands(cfg, seed)
    d = np.zeros((cfg.m, cfg.n), ml_dtypes.bfloat16)
    kernel = tile_mlir.jit(build(cfg), arch=cfg.target, backend=backend)
    kernel(*[args[n] for n in ("A", "B", "SFA", "SFB") if n in args], d)
    return d, args["logical"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", choices=TARGETS, default="sm_100a")
    p.add_argument("--dtype", default=None, help="sm_90a: bf16 (default) | e4m3; sm_100a: mxfp8 (default) | nvfp4")
    p.add_argument("-M", type=int, default=256)
    p.add_argument("-N", type=int, default=256)
    p.add_argument("-K", type=int, default=512)
    p.add_argument("--tile-n", type=int, default=None)
    p.add_argument("--stages", type=int, default=4)
    p.add_argument("--cta-group", type=int, choices=(1, 2), default=1,
                   help="sm_100a: 2 = CTA pairs (cluster of 2) issuing M = 256 MMAs")
    p.add_argument("--ptx", action="store_true", help="compile and print the PTX instead of the tile IR")
    p.add_argument("--run", choices=("sim", "gpu", "auto"), help="run the kernel on random operands (tile-sim, "
                   "the GPU, or the GPU when it can) and compare D with MMA-Sim's model of it, bit for bit")
    p.add_argument("-o", "--output", help="write to this file instead of stdout")
    args = p.parse_args(argv)
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
        d, logical = run(cfg, backend=args.run)
        want = expected(cfg, logical)
        same = np.array_equal(d.view(np.uint16), want.view(np.uint16))
        print(f"{cfg.name} on {args.run}: D {'==' if same else '!='} MMA-Sim's model, bit for bit "
              f"({np.count_nonzero(d.view(np.uint16) != want.view(np.uint16))} of {d.size} differ)")
        return 0 if same else 1
    text = build(cfg)
    if args.ptx:
        from tile_mlir.compiler import compile as tile_compile
        text = tile_compile(text, arch=cfg.target, filename=cfg.name).ptx
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
