"""tile-sim: a bit-exact CPU emulator of the PTX that tile_mlir emits for sm_100a (tcgen05).

It executes real PTX text for one CTA, or a cluster of CTAs (``cta_group::2`` pairs), and checks
the rules of the PTX ISA on the way: every illegal behaviour raises :class:`EmulationError` naming
the PTX line, the instruction and the CTA / warp / lane.

Usage::

    from tile_mlir.sim import run_ptx
    res = run_ptx(ptx, "kern", [out_array, 42], block=(128, 1, 1))
    res.tmem[0]        # (128, 512) uint32 TMEM of CTA 0 as of its last dealloc
    out_array          # updated in place from the emulated global memory

``ex2_approx_f32(bits, ftz)`` (``lg2_approx_f32``, ``rcp_approx_f32``) is the model tile-sim executes
ex2.approx.f32 (lg2, rcp) with (uint32 bit patterns in and out), for numpy models of a kernel's
arithmetic that must agree with it bit for bit.

Independence: this package imports nothing from tile_mlir.layout / dialect / lowering / mlir; its
swizzle and descriptor decode are written from the PTX ISA on their own (docs/emulator.md §2).
"""

from __future__ import annotations

from .approx_math import ex2_f32 as ex2_approx_f32, lg2_f32 as lg2_approx_f32, rcp_f32 as rcp_approx_f32
from .build import build_machine, parse_cached
from .by_value import ByValue
from .errors import EmulationError
from .result import SimResult
from .run import run_launches, run_ptx
from .tensor_map import TensorMap

__all__ = ["run_ptx", "run_launches", "EmulationError", "SimResult", "TensorMap", "ByValue", "ex2_approx_f32", "lg2_approx_f32",
           "rcp_approx_f32"]
