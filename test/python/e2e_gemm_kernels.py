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
    """The wgmma m64nN accumulator layout (docs/registers.md §1)."""
    return f"S[(4, 2, 8, {n // 8}, 4, 2) : (1@warpid, 2@reg, 4@laneid, 4@reg, 1@laneid, 1@reg)]"


def wgmma_text(name: str, a_t: str, b_t: str, k: int, n: int, a_elem: str, b_elem: str, d_elem: str = "f32",
               accumulate: bool = False, flag: bool = False, warpgroup: int = 0):
    """Kernel (A global 64xK, B global NxK, C global 64xN, D global 64xN[, F: i32]): warpgroup `warpgroup`
    (of warpgroup + 1) holds the accumulator and issues the gemm; with `flag` the accumulate operand is
    computed (F != 0), else the constant `accumulate`. a_t, b_t: the shared operands' types (MLIR type
    text); a tile IR module built with the op builders (the name is historical)."""
    from e2e_kernels import _module, cmpi, i32
    from tile_mlir.dialect import builders as tb
    from tile_mlir.mlir import arith, ir

    off = f" + O[{4 * warpgroup}@warpid]" if warpgroup else ""
    stack, module = _module()
    with stack:
        d_t = tb.buffer_t("reg", (64, n), d_elem, wg_acc_layout(n) + off)
        ga, gb = tb.buffer_t("global", (64, k), a_elem), tb.buffer_t("global", (n, k), b_elem)
        gd = tb.buffer_t("global", (64, n), d_elem)
        params = [("A", ga), ("B", gb), ("C", gd), ("D", gd)] + ([("F", ir.IntegerType.get_signless(32))] if flag else [])
        with tb.kernel(module, name, params, block=(128 * (warpgroup + 1), 1, 1)) as (_, args):
            A, B, C, D = args[:4]
            a, b = tb.alloc_shared(ir.Type.parse(a_t)), tb.alloc_shared(ir.Type.parse(b_t))
            d = tb.alloc_reg(d_t)
            tb.copy(a, A, scope="cta")
            tb.copy(b, B, scope="cta")
            tb.copy(d, C, scope="warpgroup")
            tb.fence("proxy_async")
            tb.barrier()
            if flag:
                acc = cmpi("ne", args[4], i32(0))
            else:
                acc = arith.constant(ir.IntegerType.get_signless(1), 1 if accumulate else 0)

            def body():
                tb.gemm_async(d, a, b, acc, scope="warpgroup")
                tb.gemm_wait(0)

            if warpgroup:
                with tb.when(cmpi("uge", tb.warp_id(), i32(4 * warpgroup))):
                    body()
            else:
                body()
            tb.copy(D, d, scope="warpgroup")
            tb.ret()
    return module


def run_wgmma(text: str, a_bits, b_bits, c_bits, ptxas_exe: str | None, flag: int | None = None):
    """Compile for sm_90a, assemble, emulate (`flag`: the F parameter); D's bits."""
    from e2e_kernels import ptxas
    from tile_mlir.driver.compiler import compile as tile_compile
    from tile_mlir.sim import run_ptx

    art = tile_compile(text, arch="sm_90a")
    if ptxas_exe:
        ptxas(art.ptx, ptxas_exe, arch="sm_90a")
    d = np.zeros_like(c_bits)
    run_ptx(art.ptx, art.kernel_name, [a_bits, b_bits, c_bits.copy(), d] + ([] if flag is None else [flag]),
            block=art.block, dynamic_smem=art.dynamic_smem)
    return d


# -- tcgen05.mma kernels -------------------------------------------------------------------------
class Tc:
    """One tcgen05 case, per CTA: `a_t` / `b_t` / `d_t` buffer types (a_t a tmem type: A goes to tensor
    memory by copy_async -> tcgen05.cp from `a_smem_t`), K split into `parts` gemm_async ops (the first with
    accumulate false, the rest true, on K regions of the same buffers); block scaling: scale-factor tmem
    types and their shared 128x4-atom images, copied by copy_async -> tcgen05.cp."""

    def __init__(self, name, a_elem, b_elem, d_elem, a_t, b_t, d_t, k, *, cta_group=1, parts=1, kind=None,
                 a_smem_t=None, sf=None, scale_vec=32, ncols=256, a_bytes=None, b_bytes=None):
        self.__dict__.update(locals())
        del self.__dict__["self"]


def _sf_decl(rows: int, nk: int, elem: str, col: int, dup2x2=False):
    """Scale factors for `rows` rows (rounded up to whole atoms) x nk K-blocks: in shared memory the 512-byte
    "128x4" atoms (byte
    (r % 32) * 16 + (r % 128 / 32) * 4 + j, atoms of 128 rows 512 B apart, then groups of 4 K-blocks), in
    tensor memory tmem-cp's duplicated layouts (/tmp/coord/tmem_cp.md) from column `col`, 4 columns per
    atom and K-group."""
    rows = -(-rows // 128) * 128  # whole atoms: the MMA reads the leading rows
    atoms, per, groups = rows // 128, 4, nk // 4
    smem = (f'!tile.buffer<shared, {rows}x{nk}x{elem}, "S[({atoms}, {per}, 32, {groups}, 4) : '
            f'(512, 4, 16, {512 * atoms}, 1)]", align 1024>')
    if dup2x2:  # 64x128b.warpx2::01_23: row n at lanes n % 32 + 64 (n / (rows/2)) + 32q, q < 2
        lay = (f"S[(2, {rows // 64}, 32, {groups}, 4) : (64@TLane, 4@TCol, 1@TLane, 16@TCol, 1@TCol)]"
               f" + R[2 : 32@TLane] + O[{4 * col}@TCol]")
    else:
        lay = (f"S[({atoms}, {per}, 32, {groups}, 4) : (16@TCol, 4@TCol, 1@TLane, {16 * atoms}@TCol, 1@TCol)]"
               f" + R[4 : 32@TLane] + O[{4 * col}@TCol]")
    return smem, f'!tile.buffer<tmem, {rows}x{nk}x{elem}, "{lay}">'


def tcgen05_text(c: Tc):
    """Kernel per CTA r: A_r, B_r (and SFA_r, SFB_r) global -> shared (tile.copy; packed fp4 as bytes, then
    tile.reinterpret), [A -> tmem, SFs -> tmem by copy_async], the gemm_async ops by one thread (the even
    CTA's with cta_group 2), commit (multicast to the pair), wait, and tile.tmem.load of every column of
    the allocation into OUT_r. A tile IR module built with the op builders (the name is historical)."""
    from e2e_kernels import _module, cmpi, i32, kernel_end, per_cta
    from tile_mlir.dialect import builders as tb
    from tile_mlir.mlir import arith, ir

    cg = c.cta_group
    rows_a = int(c.a_t.split(", ")[1].split("x")[0])
    rows_b = int(c.b_t.split(", ")[1].split("x")[0])
    sa_t = c.a_smem_t or c.a_t
    a_g = ("ui8" if c.a_bytes else c.a_elem, c.a_bytes or c.k)
    b_g = ("ui8" if c.b_bytes else c.b_elem, c.b_bytes or c.k)
    stack, module = _module()
    with stack:
        ty = ir.Type.parse
        ga = tb.buffer_t("global", (rows_a, a_g[1]), a_g[0])
        gb = tb.buffer_t("global", (rows_b, b_g[1]), b_g[0])
        out_t = tb.buffer_t("global", (128, c.ncols), "ui32")
        all_t = tb.buffer_t("tmem", (128, c.ncols), "ui32", f"S[(128, {c.ncols}) : (1@TLane, 1@TCol)]")
        per = ["A", "B"] + (["SFA", "SFB"] if c.sf else []) + ["OUT"]
        types = {"A": ga, "B": gb, "OUT": out_t}
        if c.sf:
            nk = c.k // c.scale_vec
            sfa_s, sfa_t = _sf_decl(rows_a, nk, c.sf, c.ncols - 16)
            sfb_s, sfb_t = _sf_decl(rows_b * cg, nk, c.sf, c.ncols - 8, dup2x2=(cg == 2 and rows_a == 64))
            pad = lambda r: -(-r // 128) * 128  # noqa: E731
            types.update(SFA=tb.buffer_t("global", (pad(rows_a), nk), c.sf),
                         SFB=tb.buffer_t("global", (pad(rows_b * cg), nk), c.sf))
        params = [(f"{p}{r}", types[p]) for r in range(cg) for p in per]
        with tb.kernel(module, c.name, params, block=(128, 1, 1),
                       **(dict(cluster=(2, 1, 1), grid=(2, 1, 1)) if cg == 2 else {})) as (_, args):
            arg = {name: v for (name, _), v in zip(params, args)}

            def smem(t, g_elem):  # a shared operand filled from global: (operand, fill target); fp4 via bytes
                if g_elem == "ui8" and "xui8" not in t:
                    raw = tb.alloc_shared(ty(_bytes_type(t)))
                    return tb.reinterpret(raw, ty(t)), raw
                v = tb.alloc_shared(ty(t))
                return v, v

            a, fa = smem(sa_t, a_g[0])
            b, fb = smem(c.b_t, b_g[0])
            fills = [(fa, "A"), (fb, "B")]
            if c.sf:
                sfa_sv, sfb_sv = tb.alloc_shared(ty(sfa_s)), tb.alloc_shared(ty(sfb_s))
                fills += [(sfa_sv, "SFA"), (sfb_sv, "SFB")]
            slot = tb.alloc_shared(tb.buffer_t("shared", (1,), "i32"))
            bar = tb.alloc_shared(tb.buffer_t("shared", (1,), "i64"))
            tid, warp = tb.thread_id(), tb.warp_id()
            c0 = i32(0)
            w0, t0 = cmpi("eq", warp, c0), cmpi("eq", tid, c0)
            even = cmpi("eq", tb.cta_rank(), c0)
            issuer = arith.andi(t0, even)
            with tb.when(w0):
                tb.tmem_alloc(slot, c.ncols, cg)
            with tb.when(t0):
                tb.mbarrier_init(bar, 1)
                tb.fence("mbarrier_init")

            def fill(r):
                for v, g in fills:
                    tb.copy(v, arg[f"{g}{r}"], scope="cta")

            per_cta(cg, even, fill)
            tb.fence("proxy_async")
            tb.fence("tcgen05_before_sync")
            tb.barrier()
            if cg == 2:
                tb.barrier("cluster")
            tb.fence("tcgen05_after_sync")
            d = tb.tmem_buffer(slot, ty(c.d_t))
            all_ = tb.tmem_buffer(slot, all_t)
            a_val = a
            if c.a_smem_t:
                a_val = tb.tmem_buffer(slot, ty(c.a_t))
            if c.sf:
                sfa = tb.tmem_buffer(slot, ty(sfa_t))
                sfb = tb.tmem_buffer(slot, ty(sfb_t))
            i1 = ir.IntegerType.get_signless(1)
            false, true = arith.constant(i1, 0), arith.constant(i1, 1)
            with tb.when(issuer):
                if c.a_smem_t:
                    tb.copy_async(a_val, a, cta_group=cg)
                if c.sf:
                    tb.copy_async(sfa, sfa_sv, cta_group=cg)
                    tb.copy_async(sfb, sfb_sv, cta_group=cg)
                kp = c.k // c.parts
                for p in range(c.parts):
                    regions = {}
                    if c.parts > 1:
                        regions = dict(a_region=[(0, rows_a), (p * kp, (p + 1) * kp)],
                                       b_region=[(0, rows_b), (p * kp, (p + 1) * kp)])
                    acc = false if p == 0 else true
                    if c.sf:
                        tb.gemm_async_block_scale(d, a_val, b, acc, sfa, sfb, kind=c.kind, cta_group=cg,
                                                  scale_vec=c.scale_vec, **regions)
                    else:
                        tb.gemm_async(d, a_val, b, acc, kind=c.kind, cta_group=cg, **regions)
                tb.commit(bar, cg, 3 if cg == 2 else None)
            tb.mbarrier_wait(bar, 0)
            tb.fence("tcgen05_after_sync")
            per_cta(cg, even, lambda r: tb.tmem_load(arg[f"OUT{r}"], all_, c.ncols, 0, "warpgroup"))
            kernel_end(cg, c.ncols, slot, w0)
    return module


def _bytes_type(t: str) -> str:
    """A packed fp4 K-major shared type as bytes: two K elements per byte (the lower K in the low nibble)."""
    import re

    m = re.match(r'!tile\.buffer<shared, (\d+)x(\d+)xf4E2M1FN, "Swizzle<(\w+)> o S\[\((\d+), (\d+)\) : \((\d+), 1\)\]", '
                 r'align (\d+)>', t)
    rows, k, sw, _, _, pitch, align = m.groups()
    return (f'!tile.buffer<shared, {rows}x{int(k) // 2}xui8, "Swizzle<{sw}> o S[({rows}, {int(k) // 2}) : '
            f'({int(pitch) // 2}, 1)]", align {align}>')


def d_from_tmem(d_t: str, img: np.ndarray) -> np.ndarray:
    """D's bits [rows, N] from a tensor-memory image [128, columns] (u32), by D's layout (apply(), replica 0):
    a 16-bit element is the low half of its 32-bit column."""
    from tile_mlir.dialect.types import BufferType
    from tile_mlir.layout import TCol, TLane

    bt = BufferType.parse_body(d_t[len("!tile."):])
    rows, n = bt.shape
    out = np.zeros((rows, n), np.uint32)
    per = 32 // bt.elem_bits
    for i in range(rows):
        for j in range(n):
            (o,) = bt.layout.apply((i, j), bt.shape)
            col, half = divmod(o[TCol], per)
            out[i, j] = (int(img[o[TLane], col]) >> (16 * half)) & (0xFFFFFFFF if per == 1 else 0xFFFF)
    return out


def run_tcgen05(c: Tc, a_bits, b_bits, sfa=None, sfb=None, ptxas_exe: str | None = None):
    """Compile for sm_100a, assemble, emulate. a_bits / b_bits (and sfa / sfb): one array per CTA, as the
    global parameters hold them. Returns the tensor-memory image [128, ncols] (u32) of each CTA."""
    from e2e_kernels import ptxas
    from tile_mlir.driver.compiler import compile as tile_compile
    from tile_mlir.sim import run_ptx

    art = tile_compile(tcgen05_text(c), arch="sm_100a")
    if ptxas_exe:
        ptxas(art.ptx, ptxas_exe)
    outs = [np.zeros((128, c.ncols), np.uint32) for _ in range(c.cta_group)]
    args = []
    for r in range(c.cta_group):
        args += [a_bits[r], b_bits[r]] + ([sfa[r], sfb[r]] if c.sf else []) + [outs[r]]
    cg = c.cta_group
    run_ptx(art.ptx, art.kernel_name, args, grid=(cg, 1, 1), block=art.block, cluster=(cg, 1, 1),
            dynamic_smem=art.dynamic_smem)
    return outs
