"""End to end: examples/attention_sm90.py (the FlashAttention-3-style sm_90a forward) -> ptxas -> tile-sim.

O (and the LSE) must equal, bit for bit, examples/attention_reference.model (the kernel's arithmetic in its
order: MMA-Sim's wgmma model, fma.rn, tile-sim's ex2 / lg2 models, the reduction's folding order), and be within
attention_reference.TOLERANCE of float64 attention. The fast case: the causal mask with grouped-query heads,
the LSE and a ragged length (one and two key tiles per query tile) on two consumer warpgroups. The slow ones:
three consumer warpgroups (192-row query tiles over 128-key tiles: two masked visits, rows that see no key of
the first), head dim 128 with a residual key tile and one persistent CTA, both head dims with batches, several q tiles,
fp16 and bf16, the persistent walks on three consumers.
"""
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import attention_reference as R  # noqa: E402
import attention_sm90 as A  # noqa: E402
from e2e_kernels import find_ptxas, ptxas  # noqa: E402

PTXAS = find_ptxas()

# dtype, batch, heads, kv_heads, seq, d, causal, lse[, persistent CTAs (0: one CTA per tile)[, consumers[,
# block_n]]]
FAST = [
    ("bf16", 1, 2, 1, 130, 64, True, True),
]
SLOW = [
    ("f16", 1, 1, 1, 130, 64, True, True, 0, 3),  # three consumers: 192-row query tiles, two masked visits
    ("f16", 1, 1, 1, 200, 128, False, False, 1),  # persistent: one CTA walks both query tiles
    ("bf16", 1, 2, 2, 400, 64, False, True),  # 192-key tiles (head dim 64 without the mask), a residual one
    ("f16", 2, 2, 1, 256, 64, True, True, 0),  # one CTA per tile
    ("bf16", 1, 4, 2, 300, 128, False, True),
    ("bf16", 2, 1, 1, 384, 128, True, False),
    ("bf16", 1, 2, 1, 200, 64, True, True, 3),  # persistent, causal: one pair unit (tiles 1, 0) per CTA
    ("f16", 1, 2, 1, 300, 64, True, False, 2),  # persistent, causal, 3 q tiles: tile 2 alone, then the pair (1, 0)
    ("bf16", 1, 2, 2, 384, 64, True, True, 0, 3),  # two q tiles of 192 rows, the second with 2 masked visits
    ("bf16", 1, 2, 1, 400, 64, True, False, 2, 3),  # persistent, causal: tile 2 alone, then the pair (1, 0)
    ("f16", 2, 1, 1, 300, 64, False, True, 3, 3),  # persistent, a residual key tile
    ("bf16", 1, 2, 1, 200, 128, True, True, 0, 3),  # head dim 128, 64-key tiles: 3 masked visits; row 0 sees none of 2
    ("f16", 1, 2, 1, 300, 64, True, True, 0, 2, 192),  # two consumers, 128 rows over 192 keys: floored maxima
]


def _case(c, slow=False):
    name = "{}_b{}h{}kv{}_s{}_d{}{}{}".format(*c[:6], "_causal" if c[6] else "", "_lse" if c[7] else "")
    name += (f"_persistent{c[8]}" if c[8] else "_grid") if len(c) > 8 else ""
    name += f"_c{c[9]}" if len(c) > 9 else ""
    name += f"_n{c[10]}" if len(c) > 10 else ""
    return pytest.param(c, id=name, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("case", [_case(c) for c in FAST] + [_case(c, slow=True) for c in SLOW])
def test_attention_sm90_on_tile_sim(case):
    dt, b, h, hk, s, d, causal, lse = case[:8]
    extra = dict(persistent=bool(case[8]), ctas=case[8] or A.H100_SMS) if len(case) > 8 else {}
    extra.update(zip(("consumers", "block_n"), case[9:]))
    cfg = A.AttnConfig(dt, b, h, s, s, d, kv_heads=hk, causal=causal, lse=lse, **extra)
    if PTXAS:
        from tile_mlir.driver.compiler import compile as tile_compile
        ptxas(tile_compile(A.build(cfg), arch="sm_90a").ptx, PTXAS, arch="sm_90a")
    o, lse_v, q, k, v = A.run(cfg, seed=s + d)
    want, want_lse = R.model(cfg, q, k, v)
    assert np.array_equal(o.view(np.uint16), want.view(np.uint16))
    ref, ref_lse = R.reference(cfg, q, k, v)
    bound = R.TOLERANCE[dt] * np.abs(v.astype(np.float64)).max()
    assert np.abs(o.astype(np.float64) - ref).max() <= bound
    if lse:
        assert np.array_equal(lse_v.view(np.uint32), want_lse.view(np.uint32))
        assert (np.abs(lse_v[:, :s] - ref_lse) / np.maximum(np.abs(ref_lse), 1.0)).max() <= R.LSE_TOLERANCE


@pytest.mark.slow
def test_softmax_free_kernel_moves_data_as_the_model():
    """Without the softmax (P = S, O = sum_j S_j V_j): the TMA rings, both products and the clipped stores alone,
    over grouped heads and a ragged length."""
    cfg = A.AttnConfig("bf16", 1, 2, 150, 150, 64, kv_heads=1)
    o, _, q, k, v = A.run(cfg, softmax=False)
    want, _ = R.model(cfg, q, k, v, softmax=False)
    assert np.array_equal(o.view(np.uint16), want.view(np.uint16))


@pytest.mark.parametrize("kw,words", [
    (dict(head_dim=96), "head_dim must be 64 or 128"),
    (dict(heads=3, kv_heads=2), "multiple of kv_heads"),
    (dict(causal=True, seq_k=100), "seq_q == seq_k"),
    (dict(consumers=4), "consumers must be one of 2, 3"),
])
def test_config_refusals(kw, words):
    args = dict(dtype="bf16", batch=1, heads=2, seq_q=128, seq_k=128, head_dim=64)
    args.update(kw)
    with pytest.raises(ValueError, match=words):
        A.AttnConfig(**args)
