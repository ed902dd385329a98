"""One GEMM kernel's configuration: the tiling and the schedule, not the shape (docs/gemm-library.md §2).

A configuration compiles to one kernel that serves every M, N, K within its alignment rules (the sizes are
kernel parameters, the tensor maps encoded at launch: dialect/types.py's runtime extents), so the compile
cache keys on the configuration alone.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GemmConfig", "DTYPES", "SMEM_LIMIT", "EPI_BOX", "FIXUP_UNITS", "FIXUP_MAX_N"]

# name -> (tile IR element type, bytes, numpy dtype name through ml_dtypes)
DTYPES = {"bf16": ("bf16", 2, "bfloat16"), "e4m3": ("f8E4M3FN", 1, "float8_e4m3fn")}
EPI_BOX = 64  # columns of a TMA-store staging box: one 128-byte swizzle row of bf16
SMEM_LIMIT = 232448  # bytes of shared memory a CTA may have on sm_90 (227 KiB)
MAX_STAGES = 12
SPLIT_REDUCE = ("fixup", "tma")
FIXUP_MAX_N = 128  # (the fix-up's second fp32 tile: 64 registers a thread at 128 columns)
# the fix-up's workspace and semaphores are kernel parameters of static shape (a window of a buffer with runtime
# extents is TMA's only: dialect/ops/kernel.py SubviewOp), sized for this many units: a slot each
FIXUP_UNITS = 512


class SplitReduction:
    """How a configuration's partial tiles meet, from its split_k, split_reduce and stream_k fields (GemmConfig
    and blackwell_config.BlackwellConfig declare them alike)."""

    @property
    def fixup(self) -> bool:
        """Split-K or stream-K reduced in the kernel: partials in a workspace, the tile's last unit adds them."""
        return self.stream_k or (self.split_k > 1 and self.split_reduce == "fixup")

    @property
    def tma_reduce(self) -> bool:
        """Split-K reduced by TMA into a zeroed fp32 workspace, converted by the caller."""
        return self.split_k > 1 and self.split_reduce == "tma"


@dataclass(frozen=True)
class GemmConfig(SplitReduction):
    """D[M, N] (bf16) = A[M, K] . B[N, K]^T on sm_90a: a persistent kernel of one producer warpgroup (TMA into
    an S-stage ring) and tile_m / 64 consumer warpgroups (wgmma, 64 rows of the tile each), the epilogue
    through shared memory and TMA stores clipped at D's edges."""
    dtype: str = "bf16"  # bf16 | e4m3
    tile_m: int = 128  # 64 (one consumer warpgroup: small M) or 128 (two)
    tile_n: int = 256
    stages: int = 0  # 0: as many as fit, at most 4 for 128 x 256 tiles, MAX_STAGES for small ones
    group_m: int = 8  # tile rows per raster group (L2 reuse)
    cluster_m: int = 1  # 2: CTA pairs on tiles (2p, n), (2p + 1, n), each multicasting half of B
    # split-K: each tile's K steps in split_k parts, each a unit of its own. split_reduce "fixup": every unit
    # stores its fp32 partial into a workspace and arrives at its tile's semaphore; the last to arrive adds the
    # parts in part order, converts and stores D (one launch, deterministic). "tma": the partials added into a
    # zeroed fp32 workspace by TMA reductions (cp.reduce.async.bulk.tensor .add) in any order, converted after
    split_k: int = 1
    split_reduce: str = "fixup"  # (faster than "tma" at every decode shape an H100 ran: heuristic.SILICON_CHECKED)
    # stream-K: every tile's K steps, tile after tile, in even ranges over the grid's CTAs (a range crosses tiles
    # in segments); a tile's segments reduced by the fix-up, in K order
    stream_k: bool = False

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {self.dtype!r}")
        if self.tile_m not in (64, 128):
            raise ValueError(f"tile_m must be 64 or 128 (one or two consumer warpgroups), got {self.tile_m}")
        if self.tile_n % 8 or not 8 <= self.tile_n <= 256:
            raise ValueError(f"tile_n={self.tile_n}: wgmma N is 8..256 in steps of 8")
        if self.group_m < 1:
            raise ValueError("group_m must be positive")
        if not 1 <= self.split_k <= 64:
            raise ValueError(f"split_k must be 1 to 64, got {self.split_k}")
        if self.split_reduce not in SPLIT_REDUCE:
            raise ValueError(f"split_reduce must be one of {', '.join(SPLIT_REDUCE)}, got {self.split_reduce!r}")
        if self.stream_k and (self.split_k > 1 or self.cluster_m > 1):
            raise ValueError("stream_k takes split_k 1 and cluster_m 1 (its ranges split the tiles' K steps)")
        if self.fixup and self.tile_n > FIXUP_MAX_N:
            raise ValueError(f"tile_n={self.tile_n}: the split-K fix-up holds a second {self.tile_n}-column fp32 "
                             f"tile in registers; at most {FIXUP_MAX_N} (or split_reduce='tma')")
        if self.cluster_m not in (1, 2) or (self.cluster_m == 2 and self.tile_n % 16):
            raise ValueError("cluster_m must be 1 or 2; with 2, tile_n a multiple of 16 (each CTA loads tile_n / 2 "
                             "rows of B, whole 8-row swizzle atoms)")
        if not self.stages:
            most = 4 if self.tile_m * self.tile_n >= 128 * 256 else MAX_STAGES
            object.__setattr__(self, "stages", next((s for s in range(most, 1, -1) if self._smem(s) <= SMEM_LIMIT), 2))
        if not 2 <= self.stages <= MAX_STAGES or self.smem_bytes > SMEM_LIMIT:
            raise ValueError(f"{self.stages} stages: 2 to {MAX_STAGES}, within {SMEM_LIMIT} bytes of shared memory "
                             f"(these need {self.smem_bytes})")

    # -- derived ---------------------------------------------------------------------------------------------
    @property
    def elem(self) -> str:
        return DTYPES[self.dtype][0]

    @property
    def elem_bytes(self) -> int:
        return DTYPES[self.dtype][1]

    @property
    def tile_k(self) -> int:
        """One 128-byte swizzle row of K per stage."""
        return 128 // self.elem_bytes

    @property
    def consumers(self) -> int:
        return self.tile_m // 64

    @property
    def threads(self) -> int:
        return 128 * (1 + self.consumers)

    @property
    def stage_bytes(self) -> int:
        return (self.tile_m + self.tile_n) * self.tile_k * self.elem_bytes

    @property
    def out_elem(self) -> str:
        """What the epilogue's TMA stores write: bf16 D, or (TMA-reduced split-K) fp32 partials."""
        return "f32" if self.tma_reduce else "bf16"

    @property
    def epi_cols(self) -> int:
        """Columns in one staging box: one 128-byte swizzle row (64 bf16 or 32 fp32: no bank conflicts), or the
        whole tile_n where that is not a multiple of it (unswizzled)."""
        row = EPI_BOX // 2 if self.tma_reduce else EPI_BOX
        return row if self.tile_n % row == 0 else self.tile_n

    @property
    def epi_rounds(self) -> int:
        return self.tile_n // self.epi_cols

    @property
    def smem_bytes(self) -> int:
        return self._smem(self.stages)

    def _smem(self, stages: int) -> int:
        out_bytes = 4 if self.tma_reduce else 2
        epi = self.consumers * (2 * 64 * self.epi_cols * out_bytes + 16)  # (two staging boxes and two barriers each)
        return stages * self.stage_bytes + epi + 16 * stages + 1024  # (+ the ring's barriers, alignment)

    @property
    def name(self) -> str:
        """The kernel's name: every field, so that one name is one configuration."""
        mc = f"_mc{self.cluster_m}" if self.cluster_m > 1 else ""
        sk = f"_k{self.split_k}" + ("r" if self.tma_reduce else "") if self.split_k > 1 else ""
        sk += "_sk" if self.stream_k else ""
        return f"gemm_sm90_{self.dtype}_{self.tile_m}x{self.tile_n}_s{self.stages}_g{self.group_m}{mc}{sk}"

    # -- what a shape asks of it -----------------------------------------------------------------------------
    def units(self, m: int, n: int) -> int:
        """Work units (clusters' tiles) of an M x N problem."""
        tiles_m = -(-m // self.tile_m)
        return -(-tiles_m // self.cluster_m) * -(-n // self.tile_n) * self.split_k

    def tiles(self, m: int, n: int) -> int:
        """Output tiles (a cluster's tiles count as one)."""
        return self.units(m, n) // self.split_k

    @property
    def workspace_shape(self) -> tuple[int, int]:
        """The fix-up's fp32 workspace W: a tile_m x tile_n slot per CTA of each of FIXUP_UNITS units."""
        return FIXUP_UNITS * self.cluster_m * self.tile_m, self.tile_n

    @property
    def semaphores(self) -> int:
        """The fix-up's i32 semaphores C: one per CTA tile and consumer warpgroup."""
        return FIXUP_UNITS * self.cluster_m * self.consumers

    def check(self, m: int, n: int, k: int, grid: int) -> None:
        """What a shape asks of this configuration beyond the operands' own rules (the fix-up's capacity)."""
        if self.stream_k:
            slots, steps = self.tiles(m, n) + grid, self.tiles(m, n) * -(-k // self.tile_k)
            if slots > FIXUP_UNITS or steps * (grid + 1) >= 1 << 32:
                raise ValueError(f"{self.name}: a {m} x {n} x {k} GEMM on {grid} CTAs needs {slots} fix-up slots "
                                 f"(at most {FIXUP_UNITS}) and {steps} K steps (their products with the grid "
                                 "must stay within 32 bits)")
        elif self.fixup and self.units(m, n) > FIXUP_UNITS:
            raise ValueError(f"{self.name}: a {m} x {n} D is {self.units(m, n)} split-K units, more than the "
                             f"fix-up's workspace holds ({FIXUP_UNITS}); fewer parts, wider tiles or "
                             "split_reduce='tma'")

    def grid(self, m: int, n: int, sms: int) -> int:
        """CTAs to launch: one per multiprocessor at most, none idle from the start (stream-K: one per
        multiprocessor, each taking a share of the K steps)."""
        if self.stream_k:
            return sms
        return self.cluster_m * max(1, min(sms // self.cluster_m, self.units(m, n)))
