"""End-to-end tensor memory <-> registers kernels, for the tests and the fuzzer (bench/fuzz_ldst.py).

`LdStCase` names a logical tile, its tensor-memory layout and two register layouts. `kernel_text(case)`
builds a kernel that every CTA runs: tile.copy global X -> registers (st_layout), copy_async registers ->
tmem (tcgen05.st), barrier, copy_async tmem -> registers (ld_layout, tcgen05.ld), tile.copy registers ->
global Y, and, when `convert` is set, tile.convert of those registers and a store to global Z.
`run_case` compiles it for sm_100a, assembles it with ptxas when given, emulates it on tile-sim, and
compares with numpy built from logical coordinates only:

  - tmem: element x sits at lane TLane(x), 32-bit column TCol(x) * bits / 32, position TCol(x) % (32 /
    bits) (low bits first): the tmem layout's apply(), nothing of the planner;
  - Y == X (the whole round trip), and Z == X rounded by numpy / ml_dtypes (round to nearest even, f8
    saturating to the largest finite value, as cvt.rn.satfinite; rz steps back toward zero where that
    rounding went away from it).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tile_mlir.layout import TCol, TLane, parse_layout

from e2e_kernels import kernel_end

CARRIER = {8: np.uint8, 16: np.uint16, 32: np.uint32}
POISON = 0xDEADBEEF


@dataclass
class LdStCase:
    name: str
    elem: str                 # f32, bf16, ui8, ...
    shape: tuple              # the logical tile
    tmem_layout: str
    st_layout: str            # registers that tcgen05.st writes from
    ld_layout: str            # registers that tcgen05.ld reads into
    scope: str = "warpgroup"
    cta_group: int = 1
    block: int = 128
    convert: tuple | None = None  # (element type, rounding) of a tile.convert after the ld
    expect: dict | None = None    # {"st": shape, "ld": shape}: the tcgen05 shapes the PTX must use

    @property
    def bits(self) -> int:
        from tile_mlir.dialect.types import element_bits
        return element_bits(self.elem)

    @property
    def ncols(self) -> int:
        span = parse_layout(self.tmem_layout).span(TCol)
        n = 32
        while n * 32 < span * self.bits:
            n *= 2
        return n


def _shape(s) -> str:
    return "x".join(str(d) for d in s)


def kernel_text(case: LdStCase) -> str:
    e, cg = case.elem, case.cta_group
    shp = _shape(case.shape)
    g_t = f"!tile.buffer<global, {shp}x{e}>"
    t_t = f'!tile.buffer<tmem, {shp}x{e}, "{case.tmem_layout}">'
    rs_t = f'!tile.buffer<reg, {shp}x{e}, "{case.st_layout}">'
    rl_t = f'!tile.buffer<reg, {shp}x{e}, "{case.ld_layout}">'
    slot_t = "!tile.buffer<shared, 1xi32>"
    names = ["X", "Y"] + (["Z"] if case.convert else [])
    per_cta = [[f"%{n}{c}" for n in names] for c in range(cg)]
    z_t = f"!tile.buffer<global, {shp}x{case.convert[0]}>" if case.convert else None
    params = []
    for c in range(cg):
        params += [f"%X{c}: {g_t}", f"%Y{c}: {g_t}"] + ([f"%Z{c}: {z_t}"] if case.convert else [])
    cga = f"cta_group = {cg}"
    L = ['"tile.kernel"() ({', f"^bb0({', '.join(params)}):",
         f'  %slot = "tile.alloc_shared"() : () -> {slot_t}',
         '  %warp = "tile.warp_id"() : () -> i32',
         '  %c0 = arith.constant 0 : i32',
         '  %w0 = arith.cmpi eq, %warp, %c0 : i32',
         '  scf.if %w0 {',
         f'    "tile.tmem.alloc"(%slot) {{num_cols = {case.ncols}, {cga}}} : ({slot_t}) -> ()',
         '  }',
         '  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()',
         '  "tile.barrier"() : () -> ()',
         '  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()',
         f'  %tmem = "tile.tmem.buffer"(%slot) : ({slot_t}) -> {t_t}',
         f'  %rs = "tile.alloc_reg"() : () -> {rs_t}',
         f'  %rl = "tile.alloc_reg"() : () -> {rl_t}']
    if case.convert:
        zr_t = f'!tile.buffer<reg, {shp}x{case.convert[0]}, "{case.ld_layout}">'
        L += [f'  %rz = "tile.alloc_reg"() : () -> {zr_t}']
    sc = f'scope = "{case.scope}"'

    def body(x, y, z):
        out = [f'"tile.copy"(%rs, {x}) {{{sc}}} : ({rs_t}, {g_t}) -> ()',
               f'"tile.copy_async"(%tmem, %rs) {{{sc}}} : ({t_t}, {rs_t}) -> ()',
               '"tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()',
               '"tile.barrier"() : () -> ()',
               '"tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()',
               f'"tile.copy_async"(%rl, %tmem) {{{sc}}} : ({rl_t}, {t_t}) -> ()',
               f'"tile.copy"({y}, %rl) {{{sc}}} : ({g_t}, {rl_t}) -> ()']
        if case.convert:
            out += [f'"tile.convert"(%rz, %rl) {{rounding = "{case.convert[1]}"}} : ({zr_t}, {rl_t}) -> ()',
                    f'"tile.copy"({z}, %rz) {{{sc}}} : ({z_t}, {zr_t}) -> ()']
        return out

    if cg == 2:
        L += ['  %rank = "tile.cta_rank"() : () -> i32', '  %even = arith.cmpi eq, %rank, %c0 : i32',
              '  scf.if %even {'] + ["    " + x for x in body(*per_cta[0] + [None] * (3 - len(names)))]
        L += ['  } else {'] + ["    " + x for x in body(*per_cta[1] + [None] * (3 - len(names)))] + ['  }']
    else:
        L += ["  " + x for x in body(*per_cta[0] + [None] * (3 - len(names)))]
    L += kernel_end(case.name, case.block, case.ncols, cg, cga, slot_t)
    return "\n".join(L) + "\n"


def make_input(case: LdStCase, rng) -> np.ndarray:
    """Raw bits of the logical tile (finite floats for float types, so a conversion has a value to round)."""
    if case.elem == "f32":
        return rng.standard_normal(case.shape).astype(np.float32).view(np.uint32)
    if case.elem == "bf16":
        f = rng.standard_normal(case.shape).astype(np.float32).view(np.uint32)
        return (f >> 16).astype(np.uint16)
    return rng.integers(0, 1 << case.bits, size=case.shape, dtype=np.uint64).astype(CARRIER[case.bits])


def expected_tmem(case: LdStCase, X: np.ndarray, ncols: int) -> np.ndarray:
    lay = parse_layout(case.tmem_layout)
    bits, epw = case.bits, 32 // case.bits
    tm = np.full((128, ncols), POISON, dtype=np.uint64)
    touched = np.zeros((128, ncols), bool)
    for x, v in enumerate(X.reshape(-1).tolist()):
        (off,) = lay.apply(x)
        lane, ecol = off[TLane], off[TCol]
        col, pos = divmod(ecol, epw)
        if not touched[lane, col]:
            tm[lane, col] = 0
            touched[lane, col] = True
        tm[lane, col] |= int(v) << (pos * bits)
    return tm.astype(np.uint32)


def expected_convert(case: LdStCase, X: np.ndarray) -> np.ndarray:
    import ml_dtypes

    f = X.view(np.float32) if case.elem == "f32" else None
    dt = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f8E4M3FN": ml_dtypes.float8_e4m3fn,
          "f8E5M2": ml_dtypes.float8_e5m2}[case.convert[0]]
    if case.convert[0].startswith("f8"):
        big = float(ml_dtypes.finfo(dt).max)
        f = np.clip(f, -big, big)  # satfinite: beyond the largest finite value saturates
    r = f.astype(dt)  # round to nearest even
    if case.convert[1] == "rz":  # toward zero: one step back where rounding went away from zero
        away = np.abs(r.astype(np.float64)) > np.abs(f.astype(np.float64))
        r = np.where(away, np.nextafter(r, np.zeros_like(r)), r).astype(dt)
    return r.view(np.uint8 if case.convert[0].startswith("f8") else np.uint16)


@dataclass
class Outcome:
    ptx: str
    tmem: list
    expected_tmem: list
    inputs: list
    outputs: list
    converted: list
    expected_converted: list
    warnings: list

    def mismatches(self) -> list[str]:
        bad = []
        for c in range(len(self.inputs)):
            if not np.array_equal(self.tmem[c], self.expected_tmem[c]):
                bad.append(f"CTA {c}: tensor memory differs")
            if not np.array_equal(self.outputs[c], self.inputs[c]):
                bad.append(f"CTA {c}: the round trip Y != X")
            if self.converted and not np.array_equal(self.converted[c], self.expected_converted[c]):
                bad.append(f"CTA {c}: the converted tile differs")
        return bad


def run_case(case: LdStCase, *, seed: int = 0, ptxas_exe: str | None = None) -> Outcome:
    from e2e_kernels import ptxas
    from tile_mlir.compiler import compile as tile_compile
    from tile_mlir.sim import run_ptx

    rng = np.random.default_rng(seed)
    art = tile_compile(kernel_text(case), arch="sm_100a")
    if ptxas_exe:
        ptxas(art.ptx, ptxas_exe)
    cg = case.cta_group
    xs = [np.ascontiguousarray(make_input(case, rng)) for _ in range(cg)]
    ys = [np.zeros_like(x) for x in xs]
    zbits = 8 if case.convert and case.convert[0].startswith("f8") else 16
    zs = [np.zeros(case.shape, CARRIER[zbits]) for _ in range(cg)] if case.convert else []
    args = []
    for c in range(cg):
        args += [xs[c], ys[c]] + ([zs[c]] if case.convert else [])
    res = run_ptx(art.ptx, art.kernel_name, args, grid=(cg, 1, 1), block=art.block, cluster=(cg, 1, 1),
                  dynamic_smem=art.dynamic_smem)
    n = case.ncols
    return Outcome(ptx=art.ptx, tmem=[res.tmem[c][:, :n] for c in range(cg)],
                   expected_tmem=[expected_tmem(case, x, n) for x in xs], inputs=xs, outputs=ys,
                   converted=zs, expected_converted=[expected_convert(case, x) for x in xs] if case.convert else [],
                   warnings=list(res.warnings))
