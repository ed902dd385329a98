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
               accumulate: bool = False, flag: bool = False, warpgroup: int = 0) -> str:
    """Kernel (A global 64xK, B global NxK, C global 64xN, D global 64xN[, F: i32]): warpgroup `warpgroup`
    (of warpgroup + 1) holds the accumulator and issues the gemm; with `flag` the accumulate operand is
    computed (F != 0), else the constant `accumulate`."""
    off = f" + O[{4 * warpgroup}@warpid]" if warpgroup else ""
    d_t = f'!tile.buffer<reg, 64x{n}x{d_elem}, "{wg_acc_layout(n)}{off}">'
    ga, gb = f"!tile.buffer<global, 64x{k}x{a_elem}>", f"!tile.buffer<global, {n}x{k}x{b_elem}>"
    gd = f"!tile.buffer<global, 64x{n}x{d_elem}>"
    params = f"%A: {ga}, %B: {gb}, %C: {gd}, %D: {gd}" + (", %F: i32" if flag else "")
    L = ['"tile.kernel"() ({', f"^bb0({params}):",
         f'  %a = "tile.alloc_shared"() : () -> {a_t}',
         f'  %b = "tile.alloc_shared"() : () -> {b_t}',
         f'  %d = "tile.alloc_reg"() : () -> {d_t}',
         f'  "tile.copy"(%a, %A) {{scope = "cta"}} : ({a_t}, {ga}) -> ()',
         f'  "tile.copy"(%b, %B) {{scope = "cta"}} : ({b_t}, {gb}) -> ()',
         f'  "tile.copy"(%d, %C) {{scope = "warpgroup"}} : ({d_t}, {gd}) -> ()',
         '  "tile.fence"() {kind = "proxy_async"} : () -> ()',
         '  "tile.barrier"() : () -> ()']
    if flag:
        L += ['  %c0 = arith.constant 0 : i32', '  %acc = arith.cmpi ne, %F, %c0 : i32']
    else:
        L += [f'  %acc = arith.constant {"true" if accumulate else "false"}']
    body = [f'"tile.gemm_async"(%d, %a, %b, %acc) {{scope = "warpgroup"}} : ({d_t}, {a_t}, {b_t}, i1) -> ()',
            '"tile.gemm_wait"() {pending = 0} : () -> ()']
    if warpgroup:
        L += ['  %warp = "tile.warp_id"() : () -> i32', f'  %w0 = arith.constant {4 * warpgroup} : i32',
              '  %mine = arith.cmpi uge, %warp, %w0 : i32', '  scf.if %mine {'] + ["    " + x for x in body] + ['  }']
    else:
        L += ["  " + x for x in body]
    L += [f'  "tile.copy"(%D, %d) {{scope = "warpgroup"}} : ({gd}, {d_t}) -> ()',
          '  "tile.return"() : () -> ()',
          f'}}) {{sym_name = "{name}", block = array<i32: {128 * (warpgroup + 1)}, 1, 1>}} : () -> ()']
    return "\n".join(L) + "\n"


def run_wgmma(text: str, a_bits, b_bits, c_bits, ptxas_exe: str | None, flag: int | None = None):
    """Compile for sm_90a, assemble, emulate (`flag`: the F parameter); D's bits."""
    from e2e_kernels import ptxas
    from tile_mlir.compiler import compile as tile_compile
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


def tcgen05_text(c: Tc) -> str:
    """Kernel per CTA r: A_r, B_r (and SFA_r, SFB_r) global -> shared (tile.copy; packed fp4 as bytes, then
    tile.reinterpret), [A -> tmem, SFs -> tmem by copy_async], the gemm_async ops by one thread (the even
    CTA's with cta_group 2), commit (multicast to the pair), wait, and tile.tmem.load of every column of
    the allocation into OUT_r."""
    cg = c.cta_group
    cga = f"cta_group = {cg}"
    slot_t, bar_t = "!tile.buffer<shared, 1xi32>", "!tile.buffer<shared, 1xi64>"
    rows_a = int(c.a_t.split(", ")[1].split("x")[0])
    rows_b = int(c.b_t.split(", ")[1].split("x")[0])
    sa_t = c.a_smem_t or c.a_t
    ga = f"!tile.buffer<global, {rows_a}x{c.a_bytes or c.k}x{'ui8' if c.a_bytes else c.a_elem}>"
    gb = f"!tile.buffer<global, {rows_b}x{c.b_bytes or c.k}x{'ui8' if c.b_bytes else c.b_elem}>"
    out_t = f"!tile.buffer<global, 128x{c.ncols}xui32>"
    all_t = f'!tile.buffer<tmem, 128x{c.ncols}xui32, "S[(128, {c.ncols}) : (1@TLane, 1@TCol)]">'
    per = ["A", "B"] + (["SFA", "SFB"] if c.sf else []) + ["OUT"]
    types = {"A": ga, "B": gb, "OUT": out_t}
    if c.sf:
        nk = c.k // c.scale_vec
        sfa_s, sfa_t = _sf_decl(rows_a, nk, c.sf, c.ncols - 16)
        sfb_s, sfb_t = _sf_decl(rows_b * cg, nk, c.sf, c.ncols - 8, dup2x2=(cg == 2 and rows_a == 64))
        pad = lambda r: -(-r // 128) * 128  # noqa: E731
        types.update(SFA=f"!tile.buffer<global, {pad(rows_a)}x{nk}x{c.sf}>",
                     SFB=f"!tile.buffer<global, {pad(rows_b * cg)}x{nk}x{c.sf}>")
    params = [f"%{p}{r}: {types[p]}" for r in range(cg) for p in per]
    L = ['"tile.kernel"() ({', f"^bb0({', '.join(params)}):"]

    def smem(name, t, g):  # a shared operand filled from global: bytes + reinterpret for packed fp4
        if "xui8" in g and "xui8" not in t:
            byte_t = t.replace("f4E2M1FN", "ui8").replace(f"x{c.a_elem}", "xui8")
            L.append(f'  %{name}_bytes = "tile.alloc_shared"() : () -> {_bytes_type(t)}')
            L.append(f'  %{name} = "tile.reinterpret"(%{name}_bytes) : ({_bytes_type(t)}) -> {t}')
            return f"%{name}_bytes", _bytes_type(t)
        L.append(f'  %{name} = "tile.alloc_shared"() : () -> {t}')
        return f"%{name}", t

    fills = [smem("a", sa_t, ga) + ("A", ga), smem("b", c.b_t, gb) + ("B", gb)]
    if c.sf:
        L += [f'  %sfa_s = "tile.alloc_shared"() : () -> {sfa_s}', f'  %sfb_s = "tile.alloc_shared"() : () -> {sfb_s}']
        fills += [("%sfa_s", sfa_s, "SFA", types["SFA"]), ("%sfb_s", sfb_s, "SFB", types["SFB"])]
    L += [f'  %slot = "tile.alloc_shared"() : () -> {slot_t}', f'  %bar = "tile.alloc_shared"() : () -> {bar_t}',
          '  %tid = "tile.thread_id"() : () -> i32', '  %warp = "tile.warp_id"() : () -> i32',
          '  %c0 = arith.constant 0 : i32', '  %w0 = arith.cmpi eq, %warp, %c0 : i32',
          '  %t0 = arith.cmpi eq, %tid, %c0 : i32', '  %rank = "tile.cta_rank"() : () -> i32',
          '  %even = arith.cmpi eq, %rank, %c0 : i32', '  %issuer = arith.andi %t0, %even : i1',
          '  scf.if %w0 {',
          f'    "tile.tmem.alloc"(%slot) {{num_cols = {c.ncols}, {cga}}} : ({slot_t}) -> ()', '  }',
          '  scf.if %t0 {', f'    "tile.mbarrier.init"(%bar) {{count = 1}} : ({bar_t}) -> ()',
          '    "tile.fence"() {kind = "mbarrier_init"} : () -> ()', '  }']

    def per_cta(lines_of):
        if cg == 1:
            return ["  " + x for x in lines_of(0)]
        return (['  scf.if %even {'] + ["    " + x for x in lines_of(0)] + ['  } else {']
                + ["    " + x for x in lines_of(1)] + ['  }'])

    L += per_cta(lambda r: [f'"tile.copy"({v}, %{g}{r}) {{scope = "cta"}} : ({t}, {gt}) -> ()' for v, t, g, gt in fills])
    L += ['  "tile.fence"() {kind = "proxy_async"} : () -> ()', '  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()',
          '  "tile.barrier"() : () -> ()']
    if cg == 2:
        L += ['  "tile.barrier"() {scope = "cluster"} : () -> ()']
    L += ['  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()',
          f'  %d = "tile.tmem.buffer"(%slot) : ({slot_t}) -> {c.d_t}',
          f'  %all = "tile.tmem.buffer"(%slot) : ({slot_t}) -> {all_t}']
    a_val = "%a"
    if c.a_smem_t:
        L += [f'  %at = "tile.tmem.buffer"(%slot) : ({slot_t}) -> {c.a_t}']
        a_val = "%at"
    if c.sf:
        L += [f'  %sfa = "tile.tmem.buffer"(%slot) : ({slot_t}) -> {sfa_t}',
              f'  %sfb = "tile.tmem.buffer"(%slot) : ({slot_t}) -> {sfb_t}']
    L += ['  %false = arith.constant false', '  %true = arith.constant true', '  scf.if %issuer {']
    if c.a_smem_t:
        L += [f'    "tile.copy_async"(%at, %a) {{{cga}}} : ({c.a_t}, {sa_t}) -> ()']
    if c.sf:
        L += [f'    "tile.copy_async"(%sfa, %sfa_s) {{{cga}}} : ({sfa_t}, {sfa_s}) -> ()',
              f'    "tile.copy_async"(%sfb, %sfb_s) {{{cga}}} : ({sfb_t}, {sfb_s}) -> ()']
    kp = c.k // c.parts
    for p in range(c.parts):
        attrs = [cga]
        if c.parts > 1:
            attrs += [f"a_offsets = array<i64: 0, {p * kp}>", f"a_sizes = array<i64: {rows_a}, {kp}>",
                      f"b_offsets = array<i64: 0, {p * kp}>", f"b_sizes = array<i64: {rows_b}, {kp}>"]
        if c.kind:
            attrs.append(f'kind = "{c.kind}"')
        acc = "%false" if p == 0 else "%true"
        if c.sf:
            attrs.append(f"scale_vec = {c.scale_vec}")
            L += [f'    "tile.gemm_async.block_scale"(%d, {a_val}, %b, {acc}, %sfa, %sfb) {{{", ".join(attrs)}}} : '
                  f'({c.d_t}, {c.a_t}, {c.b_t}, i1, {sfa_t}, {sfb_t}) -> ()']
        else:
            L += [f'    "tile.gemm_async"(%d, {a_val}, %b, {acc}) {{{", ".join(attrs)}}} : ({c.d_t}, {c.a_t}, {c.b_t}, i1) -> ()']
    mc = ", multicast_mask = 3" if cg == 2 else ""
    L += [f'    "tile.commit"(%bar) {{{cga}{mc}}} : ({bar_t}) -> ()', '  }',
          f'  "tile.mbarrier.wait"(%bar) {{phase = 0}} : ({bar_t}) -> ()',
          '  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()']
    L += per_cta(lambda r: [f'"tile.tmem.load"(%OUT{r}, %all) {{col_offset = 0, num_cols = {c.ncols}, scope = "warpgroup"}}'
                            f' : ({out_t}, {all_t}) -> ()'])
    L += ['  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()', '  "tile.barrier"() : () -> ()']
    if cg == 2:
        L += ['  "tile.barrier"() {scope = "cluster"} : () -> ()']
    L += ['  scf.if %w0 {', '    "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()',
          f'    "tile.tmem.relinquish"() {{{cga}}} : () -> ()',
          f'    "tile.tmem.dealloc"(%slot) {{num_cols = {c.ncols}, {cga}}} : ({slot_t}) -> ()', '  }',
          '  "tile.return"() : () -> ()']
    cl = ", cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>" if cg == 2 else ""
    L += [f'}}) {{sym_name = "{c.name}", block = array<i32: 128, 1, 1>{cl}}} : () -> ()']
    return "\n".join(L) + "\n"


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
    from tile_mlir.compiler import compile as tile_compile
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
