"""A persistent TMA GEMM in Triton, bench/gemm.py's second reference: D[M, N] = A[M, K] . B[N, K]^T, bf16 D.

One program per multiprocessor walks the output tiles tile_id = pid, pid + P, ... in a grouped order: GROUP_M
tile rows at a time, column by column inside the group, so the P tiles in flight share A's and B's panels in
L2. Operands come through host-built TMA descriptors (TensorDescriptor), D leaves through one too.
Imported only on the GPU machine (needs triton and torch).
"""
from __future__ import annotations

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# (BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, num_stages, num_warps) per operand byte width; the first is the default
CONFIGS = {
    2: [(128, 256, 64, 8, 3, 8), (128, 128, 64, 8, 4, 8)],
    1: [(128, 256, 128, 8, 3, 8), (128, 128, 128, 8, 4, 8)],
}


@triton.jit
def _tile_coords(tile_id, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_group = GROUP_M * tiles_n
    first_m = (tile_id // per_group) * GROUP_M
    rows = tl.minimum(tiles_m - first_m, GROUP_M)  # the last group may be short
    in_group = tile_id % per_group
    return first_m + in_group % rows, in_group // rows


@triton.jit
def persistent_gemm(a_desc, b_desc, d_desc, M, N, K, NUM_PROGRAMS: tl.constexpr, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                    STAGES: tl.constexpr):
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    k_steps = tl.cdiv(K, BLOCK_K)
    for tile_id in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_PROGRAMS):
        tm, tn = _tile_coords(tile_id, tiles_m, tiles_n, GROUP_M)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ks in tl.range(0, k_steps, num_stages=STAGES):
            a = a_desc.load([tm * BLOCK_M, ks * BLOCK_K])
            b = b_desc.load([tn * BLOCK_N, ks * BLOCK_K])
            acc = tl.dot(a, b.T, acc)
        d_desc.store([tm * BLOCK_M, tn * BLOCK_N], acc.to(tl.bfloat16))


def launcher(a: torch.Tensor, b: torch.Tensor, d: torch.Tensor, config=None):
    """A callable computing d = a . b^T with one config (CONFIGS' first for the operand width by default)."""
    bm, bn, bk, group, stages, warps = config or CONFIGS[a.element_size()][0]
    m, k = a.shape
    n = b.shape[0]
    programs = min(torch.cuda.get_device_properties(a.device).multi_processor_count,
                   triton.cdiv(m, bm) * triton.cdiv(n, bn))
    a_desc = TensorDescriptor.from_tensor(a, [bm, bk])
    b_desc = TensorDescriptor.from_tensor(b, [bn, bk])
    d_desc = TensorDescriptor.from_tensor(d, [bm, bn])

    def run():
        persistent_gemm[(programs,)](a_desc, b_desc, d_desc, m, n, k, NUM_PROGRAMS=programs, BLOCK_M=bm,
                                     BLOCK_N=bn, BLOCK_K=bk, GROUP_M=group, STAGES=stages, num_warps=warps)
    return run
