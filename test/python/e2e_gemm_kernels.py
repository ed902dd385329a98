"""End-to-end gemm_async kernels for the tests: tile IR -> PTX -> ptxas -> tile-sim, and references.

`wgmma_text` / `tcgen05_text` build a kernel that copies A (M x K) and B (N x K) from global to shared
memory in the layouts under test (tile.copy: by logical coordinates), optionally C into the accumulator,
runs one tile.gemm_async and stores D back to global. The references are computed from the logical
matrices only:

  - `mma_reference`: MMA-Sim through tile-sim's sim/mma_numerics.py, called once per K-step of the
    instruction's K on the logical A, B and the previous step's D: the bits the tensor core gives;
  - `exact_reference`: float64 products and sums of the values the tensor core multiplies (tf32 inputs
    truncated to 10 mantissa bits first), to check `mma_reference` within a stated bound;
  - integer kinds are exact (s32, wrapping).
"""
from __future__ import annotations

import numpy as np

CARRIER = {4: np.uint8, 6: np.uint8, 8: np.uint8, 16: np.uint16, 32: np.uint32}
# element type -> (bits, mma_numerics type name)
ELEM = {"f32": (32, "tf32"), "f16": (16, "f16"), "bf16": (16, "bf16"), "f8E4M3FN": (8, "e4m3"),
        "f8E5M2": (8, "e5m2"), "si8": (8, "s8"), "i8": (8, "s8"), "ui8": (8, "u8"),
        "f6E2M3FN": (6, "e2m3"), "f6E3M2FN": (6, "e3m2"), "f4E2M1FN": (4, "e2m1")}
K_STEP_BITS = 256


def shape_text(s) -> str:
    return "x".join(str(d) for d in s)


def random_bits(elem: str, shape, rng) -> np.ndarray:
    """Raw bits of finite random values of `elem` (small magnitudes: sums stay far from overflow)."""
    import ml_dtypes

    if elem in ("si8", "i8", "ui8"):
        return rng.integers(0, 256, size=shape, dtype=np.int64).astype(np.uint8)
    x = rng.standard_normal(shape).astype(np.float32)
    if elem == "f32":
        return x.view(np.uint32)
    dt = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f8E4M3FN": ml_dtypes.float8_e4m3fn,
          "f8E5M2": ml_dtypes.float8_e5m2, "f6E2M3FN": ml_dtypes.float6_e2m3fn,
          "f6E3M2FN": ml_dtypes.float6_e3m2fn, "f4E2M1FN": ml_dtypes.float4_e2m1fn}[elem]
    bits = ELEM[elem][0]
    return x.astype(dt).view(np.uint16 if bits == 16 else np.uint8) & ((1 << bits) - 1)


def values(elem: str, bits: np.ndarray) -> np.ndarray:
    """float64 (or int64) values of raw bits; tf32 operands as the tensor core reads them (low 13
    mantissa bits dropped, PTX ISA wgmma "tf32")."""
    import ml_dtypes

    if elem in ("si8", "i8"):
        return bits.astype(np.int8).astype(np.int64)
    if elem == "ui8":
        return bits.astype(np.int64)
    if elem == "f32":
        return (bits.astype(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    dt = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f8E4M3FN": ml_dtypes.float8_e4m3fn,
          "f8E5M2": ml_dtypes.float8_e5m2, "f6E2M3FN": ml_dtypes.float6_e2m3fn,
          "f6E3M2FN": ml_dtypes.float6_e3m2fn, "f4E2M1FN": ml_dtypes.float4_e2m1fn}[elem]
    carrier = np.uint16 if ELEM[elem][0] == 16 else np.uint8
    return bits.astype(carrier).view(dt).astype(np.float64)


def exact_reference(a_elem, b_elem, a_bits, b_bits, c=None) -> np.ndarray:
    """D = A . B^T (+ C) in exact arithmetic (float64 holds every product and these sums exactly enough
    for the bound the tests state); int64 for integer kinds."""
    d = values(a_elem, a_bits) @ values(b_elem, b_bits).T
    return d if c is None else d + c


def mma_reference(api: str, a_elem, b_elem, d_elem, a_bits, b_bits, c_bits, **kw) -> np.ndarray:
    """D's bits from MMA-Sim (through sim/mma_numerics), one call per K-step, chained through C.
    `api` is "wgmma" or "tcgen05"; kw goes to that function (n, m, kind, ...)."""
    from tile_mlir.sim import mma_numerics

    bits = ELEM[a_elem][0]
    k_step = K_STEP_BITS // (8 if bits in (4, 6) and kw.get("kind") in ("f8f6f4", "mxf8f6f4") else bits)
    atype, btype = ELEM[a_elem][1], ELEM[b_elem][1]
    dtype = {"f32": "f32", "f16": "f16", "i32": "s32", "si32": "s32"}[d_elem]
    c = c_bits.astype(np.uint32)
    for k0 in range(0, a_bits.shape[1], k_step):
        a = a_bits[:, k0:k0 + k_step].astype(np.uint32)
        b = b_bits[:, k0:k0 + k_step].T.astype(np.uint32)
        if api == "wgmma":
            c = mma_numerics.wgmma(dtype, atype, btype, a, b, c, n=b.shape[1], k=k_step)
        else:
            c = mma_numerics.tcgen05(kw["kind"], dtype, atype, btype, a, b, c, m=kw["m"], n=b.shape[1], k=k_step)
    return c


# -- wgmma kernels -------------------------------------------------------------------------------
def wg_acc_layout(n: int) -> str:
    """registers.md's m64nN accumulator layout (mma-tma-reference §3.4)."""
    return f"S[(4, 2, 8, {n // 8}, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]"


def wgmma_text(name: str, a_t: str, b_t: str, k: int, n: int, a_elem: str, b_elem: str, d_elem: str = "f32",
               accumulate: bool = False) -> str:
    """Kernel (A global 64xK, B global NxK, C global 64xN, D global 64xN): one warpgroup."""
    d_t = f'!tile.buffer<reg, 64x{n}x{d_elem}, "{wg_acc_layout(n)}">'
    ga, gb = f"!tile.buffer<global, 64x{k}x{a_elem}>", f"!tile.buffer<global, {n}x{k}x{b_elem}>"
    gd = f"!tile.buffer<global, 64x{n}x{d_elem}>"
    L = ['"tile.kernel"() ({', f"^bb0(%A: {ga}, %B: {gb}, %C: {gd}, %D: {gd}):",
         f'  %a = "tile.alloc_shared"() : () -> {a_t}',
         f'  %b = "tile.alloc_shared"() : () -> {b_t}',
         f'  %d = "tile.alloc_reg"() : () -> {d_t}',
         f'  "tile.copy"(%a, %A) {{scope = "cta"}} : ({a_t}, {ga}) -> ()',
         f'  "tile.copy"(%b, %B) {{scope = "cta"}} : ({b_t}, {gb}) -> ()',
         f'  "tile.copy"(%d, %C) {{scope = "warpgroup"}} : ({d_t}, {gd}) -> ()',
         '  "tile.fence"() {kind = "proxy_async"} : () -> ()',
         '  "tile.barrier"() : () -> ()',
         f'  %acc = arith.constant {"true" if accumulate else "false"}',
         f'  "tile.gemm_async"(%d, %a, %b, %acc) {{scope = "warpgroup"}} : ({d_t}, {a_t}, {b_t}, i1) -> ()',
         '  "tile.gemm_wait"() {pending = 0} : () -> ()',
         f'  "tile.copy"(%D, %d) {{scope = "warpgroup"}} : ({gd}, {d_t}) -> ()',
         '  "tile.return"() : () -> ()',
         f'}}) {{sym_name = "{name}", block = array<i32: 128, 1, 1>}} : () -> ()']
    return "\n".join(L) + "\n"


def run_wgmma(text: str, a_bits, b_bits, c_bits, ptxas_exe: str | None):
    """Compile for sm_90a, assemble, emulate; D's bits."""
    from e2e_kernels import ptxas
    from tile_mlir.compiler import compile as tile_compile
    from tile_mlir.sim import run_ptx

    art = tile_compile(text, arch="sm_90a")
    if ptxas_exe:
        ptxas(art.ptx, ptxas_exe, arch="sm_90a")
    d = np.zeros_like(c_bits)
    run_ptx(art.ptx, art.kernel_name, [a_bits, b_bits, c_bits.copy(), d], block=art.block,
            dynamic_smem=art.dynamic_smem)
    return d
