"""End-to-end tensor memory <-> registers kernels, for the tests and the fuzzer (bench/fuzz.py's ldst family).

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

from e2e_kernels import _module, cmpi, i32, kernel_end, per_cta

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


def kernel_text(case: LdStCase):
    """The case's kernel as a tile IR module (built with the op builders; the name is historical)."""
    from tile_mlir.dialect import builders as tb

    e, cg, shp = case.elem, case.cta_group, case.shape
    stack, module = _module()
    with stack:
        g_t = tb.buffer_t("global", shp, e)
        z_t = tb.buffer_t("global", shp, case.convert[0]) if case.convert else None
        params = []
        for c in range(cg):
            params += [(f"X{c}", g_t), (f"Y{c}", g_t)] + ([(f"Z{c}", z_t)] if case.convert else [])
        with tb.kernel(module, case.name, params, block=(case.block, 1, 1),
                       **(dict(cluster=(2, 1, 1), grid=(2, 1, 1)) if cg == 2 else {})) as (_, args):
            per = len(args) // cg
            slot = tb.alloc_shared(tb.buffer_t("shared", (1,), "i32"))
            warp = tb.warp_id()
            c0 = i32(0)
            w0 = cmpi("eq", warp, c0)
            with tb.when(w0):
                tb.tmem_alloc(slot, case.ncols, cg)
            tb.fence("tcgen05_before_sync")
            tb.barrier()
            tb.fence("tcgen05_after_sync")
            tmem = tb.tmem_buffer(slot, tb.buffer_t("tmem", shp, e, case.tmem_layout))
            rs = tb.alloc_reg(tb.buffer_t("reg", shp, e, case.st_layout))
            rl = tb.alloc_reg(tb.buffer_t("reg", shp, e, case.ld_layout))
            if case.convert:
                rz = tb.alloc_reg(tb.buffer_t("reg", shp, case.convert[0], case.ld_layout))
            sc = case.scope

            def body(r):
                x, y, *z = args[r * per:(r + 1) * per]
                tb.copy(rs, x, scope=sc)
                tb.copy_async(tmem, rs, scope=sc)
                tb.fence("tcgen05_before_sync")
                tb.barrier()
                tb.fence("tcgen05_after_sync")
                tb.copy_async(rl, tmem, scope=sc)
                tb.copy(y, rl, scope=sc)
                if case.convert:
                    tb.convert(rz, rl, case.convert[1])
                    tb.copy(z[0], rz, scope=sc)

            even = cmpi("eq", tb.cta_rank(), c0) if cg == 2 else None
            per_cta(cg, even, body)
            kernel_end(cg, case.ncols, slot, w0)
    return module


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
    from tile_mlir.driver.compiler import compile as tile_compile
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
