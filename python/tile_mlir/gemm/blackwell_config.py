"""One dense Blackwell GEMM kernel's configuration (sm_100a): the tiling and the schedule, not the shape, as
config.py's GemmConfig is for sm_90a (docs/gemm-walkthrough.md §12).

A configuration compiles to one kernel (blackwell.py) that serves every M, N, K whose rows are 16-byte multiples
(sizes are kernel parameters, the tensor maps encoded at launch). The methods the library calls are GemmConfig's:
`units(m, n)`, `grid(m, n, sms)`, `name`.
"""
from __future__ import annotations

from dataclasses import dataclass

from .config import SplitReduction

__all__ = ["BlackwellConfig", "FORMATS", "SMEM_LIMIT", "TMEM_COLUMNS", "EPI_COLS"]

# name -> (tile IR element type, bits, tcgen05.mma kind)
FORMATS = {"bf16": ("bf16", 16, "f16"), "f16": ("f16", 16, "f16"), "e4m3": ("f8E4M3FN", 8, "f8f6f4"),
           "e5m2": ("f8E5M2", 8, "f8f6f4"), "tf32": ("f32", 32, "tf32")}
SMEM_LIMIT = 232448  # bytes of shared memory a CTA may have on sm_100 (227 KiB)
TMEM_COLUMNS = 512
EPI_COLS = 64  # accumulator columns an epilogue thread holds at a time (tcgen05.ld.32x32b.x64), one staging box
MAX_STAGES = 8
# the fix-up's static workspace, in units (config.py's FIXUP_UNITS for sm_90a): slots here are 128 x tile_n
# fp32 a CTA, up to 128 KiB, so fewer of them (256 units of 128 x 128: 16 MiB; of 256-column pairs: 64 MiB)
FIXUP_UNITS = 256
MAX_EXTENT = (1 << 31) - 1  # (dialect/types.py's DYNAMIC_EXTENT: sizes and coordinates are i32 in the kernel)


@dataclass(frozen=True)
class BlackwellConfig(SplitReduction):
    """D[M, N] (bf16) = A[M, K] . B[N, K]^T on sm_100a: a persistent kernel of a TMA producer thread, an MMA
    thread and four epilogue warps, the accumulator double-buffered in tensor memory."""
    dtype: str = "bf16"  # bf16 | f16 (kind::f16), e4m3 | e5m2 (kind::f8f6f4), tf32 (kind::tf32)
    tile_n: int = 128
    cta_group: int = 1  # 2: CTA pairs (clusters of 2) on 256 x tile_n tiles, the even CTA issuing the MMAs
    stages: int = 0  # 0: as many as fit, at most MAX_STAGES
    group_m: int = 8  # tile rows per raster group (L2 reuse)
    # split-K: each tile's K steps in split_k parts, each a unit of its own, their fp32 partials added into a
    # zeroed fp32 workspace W (M x N) by TMA reductions (cp.reduce.async.bulk.tensor .add), converted after
    # (config.py's scheme for sm_90a)
    split_k: int = 1
    # "tma" (the default here): as above; "fixup": each unit's partial stored into a static workspace and the
    # tile's last unit (a semaphore) adds them in part order, converts and stores D (hopper.py's fix-up)
    split_reduce: str = "tma"
    # stream-K (split_k 1): the tiles' K steps in even ranges over the walkers (CTAs or pairs), each tile's
    # segments added by the fix-up in K order (hopper.py's stream-K)
    stream_k: bool = False

    def __post_init__(self):
        if self.dtype not in FORMATS:
            raise ValueError(f"dtype must be one of {', '.join(FORMATS)}, got {self.dtype!r}")
        if self.tile_n % 64 or not 64 <= self.tile_n <= 256:
            raise ValueError(f"tile_n={self.tile_n}: 64, 128, 192 or 256 (whole 64-column epilogue slices; two "
                             f"accumulators in tensor memory's {TMEM_COLUMNS} columns)")
        if self.cta_group not in (1, 2):
            raise ValueError(f"cta_group={self.cta_group}: 1, or 2 (CTA pairs)")
        if self.group_m < 1 or self.split_k < 1:
            raise ValueError("group_m and split_k must be positive")
        if self.split_k > 64:
            raise ValueError(f"split_k={self.split_k}: 1 to 64")
        if self.split_reduce not in ("tma", "fixup"):
            raise ValueError(f"split_reduce must be tma or fixup, got {self.split_reduce!r}")
        if self.stream_k and self.split_k > 1:
            raise ValueError("stream_k takes split_k 1 (its ranges split the tiles' K steps)")
        if not self.stages:
            object.__setattr__(self, "stages", next((s for s in range(MAX_STAGES, 1, -1)
                                                     if self._smem(s) <= SMEM_LIMIT), 2))
        if not 2 <= self.stages <= MAX_STAGES or self.smem_bytes > SMEM_LIMIT:
            raise ValueError(f"{self.stages} stages: 2 to {MAX_STAGES}, within {SMEM_LIMIT} bytes of shared memory "
                             f"(these need {self.smem_bytes})")

    # -- derived ---------------------------------------------------------------------------------------------
    @property
    def elem(self) -> str:
        return FORMATS[self.dtype][0]

    @property
    def elem_bits(self) -> int:
        return FORMATS[self.dtype][1]

    @property
    def elem_bytes(self) -> float:
        return self.elem_bits / 8

    @property
    def kind(self) -> str:
        return FORMATS[self.dtype][2]

    tile_m = 128  # rows of A and D a CTA holds (a pair's MMA: 256)

    @property
    def tile_k(self) -> int:
        """One 128-byte swizzle row of K per stage."""
        return 1024 // self.elem_bits

    @property
    def tmem_cols(self) -> int:
        """Two accumulators of tile_n f32 columns, rounded up to a power of two (tcgen05.alloc)."""
        return 1 << max(5, (2 * self.tile_n - 1).bit_length())

    @property
    def stage_bytes(self) -> int:
        """A CTA's TMA bytes a stage: its 128 rows of A and tile_n / cta_group rows of B, 128 bytes of K each."""
        return (self.tile_m + self.tile_n // self.cta_group) * 128

    @property
    def out_elem(self) -> str:
        """What the epilogue's TMA stores write: bf16 D, or (TMA-reduced split-K) fp32 partials into W."""
        return "f32" if self.tma_reduce else "bf16"

    @property
    def epi_box(self) -> int:
        """Columns of one staging box: one 128-byte swizzle row (64 bf16, 32 fp32)."""
        return 32 if self.tma_reduce else 64

    @property
    def workspace_shape(self) -> tuple[int, int]:
        """The fix-up's fp32 workspace: a 128 x tile_n slot per CTA of each of FIXUP_UNITS units."""
        return FIXUP_UNITS * self.cta_group * self.tile_m, self.tile_n

    @property
    def semaphores(self) -> int:
        """The fix-up's i32 semaphores: one per CTA tile (one epilogue warpgroup a CTA)."""
        return FIXUP_UNITS * self.cta_group

    def _smem(self, stages: int) -> int:
        """The ring, the epilogue's tile of D (bf16) or of fp32 partials, barriers, alignment padding (an upper
        bound)."""
        out = 4 if self.tma_reduce else 2
        return stages * self.stage_bytes + self.tile_m * self.tile_n * out + 8 * (2 * stages + 6) + 4 + 1024

    @property
    def smem_bytes(self) -> int:
        return self._smem(self.stages)

    @property
    def name(self) -> str:
        """The kernel's name: every field, so that one name is one configuration."""
        return (f"gemm_sm100_{self.dtype}_n{self.tile_n}_cg{self.cta_group}_s{self.stages}_g{self.group_m}"
                + (f"_k{self.split_k}" + ("f" if self.fixup else "") if self.split_k > 1 else "")
                + ("_sk" if self.stream_k else ""))

    # -- what a shape asks of it -----------------------------------------------------------------------------
    def tiles(self, m: int, n: int) -> tuple[int, int]:
        """Output tiles (rows, columns) of an M x N problem: 128 x tile_n, or 256 x tile_n per CTA pair."""
        return -(-m // (self.tile_m * self.cta_group)), -(-n // self.tile_n)

    def units(self, m: int, n: int) -> int:
        """Work units: (tile, split) pairs, each a CTA's (or pair's) at a time."""
        tm, tn = self.tiles(m, n)
        return tm * tn * self.split_k

    def grid(self, m: int, n: int, sms: int) -> int:
        """CTAs to launch: one per multiprocessor at most, none idle from the start (stream-K: every one)."""
        if self.stream_k:
            return self.cta_group * max(1, sms // self.cta_group)
        return self.cta_group * max(1, min(sms // self.cta_group, self.units(m, n)))

    def check(self, m: int, n: int, k: int, grid: int) -> None:
        """ValueError unless this kernel can run an M x N x K problem on `grid` CTAs: sizes within i32, rows of
        A, B and D of 16-byte multiples (TMA's global strides), whole CTA pairs."""
        if min(m, n, k) < 1 or max(m, n, k) > MAX_EXTENT:
            raise ValueError(f"M={m}, N={n}, K={k}: sizes from 1 to {MAX_EXTENT} (i32 parameters and TMA "
                             "coordinates)")
        if (k * self.elem_bits // 8) % 16 or n % 8:
            raise ValueError(f"K={k}, N={n}: rows of A and B of a 16-byte multiple (K a multiple of "
                             f"{128 // self.elem_bits}) and N a multiple of 8 (TMA's 16-byte global strides)")
        if grid < self.cta_group or grid % self.cta_group:
            raise ValueError(f"grid={grid}: whole CTA pairs" if self.cta_group == 2 else f"grid={grid}")
        if self.stream_k:
            tm, tn = self.tiles(m, n)
            walkers, steps = grid // self.cta_group, tm * tn * -(-k // self.tile_k)
            if tm * tn + walkers > FIXUP_UNITS or steps * (walkers + 1) >= 1 << 32:
                raise ValueError(f"{self.name}: {tm * tn} tiles on {walkers} walkers need {tm * tn + walkers} fix-up "
                                 f"slots (at most {FIXUP_UNITS}) and {steps} K steps (times the walkers: 32 bits)")
        elif self.fixup and self.units(m, n) > FIXUP_UNITS:
            raise ValueError(f"{self.name}: {self.units(m, n)} split-K units, more than the fix-up's workspace "
                             f"holds ({FIXUP_UNITS}); fewer parts or split_reduce='tma'")

    def k_per_split(self, k: int) -> int:
        """K tiles of one split (the last split's past K are TMA's zeros: every unit runs as many K steps)."""
        return -(-(-(-k // self.tile_k)) // self.split_k)
