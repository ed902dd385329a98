"""The sm_90a gemm_async -> wgmma artifacts for the H200 (make_hopper_artifacts.py writes them): one
warpgroup loads A (64 x K) and B (N x K) into swizzled shared memory, runs one tile.gemm_async (a wgmma
group of K / k instructions), waits and stores D (64 x N). The kernel text is the end-to-end tests' own
(test/python/e2e_gemm_kernels.py). Each is run here on tile-sim first and must equal MMA-Sim's Hopper model
on the logical matrices bit for bit; that output is the expected one the H200 must reproduce.
"""
import os
import sys


HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "python"))

from e2e_gemm_kernels import mma_reference, random_bits, wgmma_text  # noqa: E402

KERNELS_SOURCE = os.path.join(ROOT, "test", "python", "e2e_gemm_kernels.py")


def _kmajor(rows, k, elem, bits):  # 128B swizzle, K beyond one swizzle row in the next column of atoms
    e = 1024 // bits
    lay = f"S[({rows}, {k}) : ({e}, 1)]" if k <= e else f"S[({rows}, {k // e}, {e}) : ({e}, {rows * e}, 1)]"
    return f'!tile.buffer<shared, {rows}x{k}x{elem}, "Swizzle<128B> o {lay}", align 1024>'


def _mnmajor64(rows, k, elem):  # 16-bit, MN-major, 64B swizzle
    e = 32
    lay = f"S[({rows}, {k}) : (1, {e})]" if rows <= e else f"S[({rows // e}, {e}, {k}) : ({e * k}, 1, {e})]"
    return f'!tile.buffer<shared, {rows}x{k}x{elem}, "Swizzle<64B> o {lay}", align 512>'


# (name, A elem, B elem, A type, B type, K, N, D elem)
CASES = [
    ("hopper_wgmma_bf16_m64n128k64_128B", "bf16", "bf16", _kmajor(64, 64, "bf16", 16), _kmajor(128, 64, "bf16", 16),
     64, 128, "f32"),
    ("hopper_wgmma_f16_mn_major_m64n64k32_64B", "f16", "f16", _mnmajor64(64, 32, "f16"), _mnmajor64(64, 32, "f16"),
     32, 64, "f32"),
    ("hopper_wgmma_e4m3_m64n256k64_128B", "f8E4M3FN", "f8E4M3FN", _kmajor(64, 64, "f8E4M3FN", 8),
     _kmajor(256, 64, "f8E4M3FN", 8), 64, 256, "f32"),
]


def wgmma_cases(rng):
    """(name, tile IR, inputs {A, B, C}, expected D from MMA-Sim) per case."""
    for name, ae, be, a_t, b_t, k, n, de in CASES:
        a, b = random_bits(ae, (64, k), rng), random_bits(be, (n, k), rng)
        c = random_bits("f32", (64, n), rng)
        yield (name, wgmma_text(name, a_t, b_t, k, n, ae, be, de, accumulate=True), {"A": a, "B": b, "C": c},
               mma_reference("wgmma", ae, be, de, a, b, c))
