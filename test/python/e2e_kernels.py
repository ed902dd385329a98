"""End-to-end smem -> tmem kernels for the tests and the differential fuzzer.

`Case` describes one shared -> tensor-memory copy_async (layouts as text, regions, dtype, cta_group).
`kernel_text(case)` builds a complete tile IR kernel in the shape of examples/demo.mlir: fill the shared
tile from global (tile.copy), fence.proxy.async, barrier, copy_async by thread 0 (by thread 0 of the even
CTA for cta_group 2), tcgen05.commit to an mbarrier (multicast_mask = 3 for cta_group 2, so both CTAs of
the pair see completion), mbarrier wait, tcgen05 fence, tmem.load of every allocated column into a global
[128, cols] buffer, dealloc. `run_case(case)` compiles it for sm_100a, assembles the PTX with ptxas,
emulates it on tile-sim and returns the TMEM and readback of each CTA next to `expected(case, A)`.

The expectation is computed independently of the lowering: the global input IS the logical shared tile,
so the value of source element i is plain numpy indexing of the input at the i-th coordinate of the
source region (row-major); the i-th coordinate of the destination region goes through the tmem layout's
`apply()` (logical coordinate -> (TLane, TCol) offsets, one per replica), and the 32-bit column is
TCol * bits / 32. No swizzle or descriptor arithmetic is involved: the data reach tensor memory through
tile.copy's address computation and the emulator's own descriptor decode + swizzle (PTX ISA).

6-bit elements: the shared tile is declared `packing b6x16_p32` (the form tcgen05.cp decompresses),
the global input holds the logical tile packed contiguously (6 bits per element, low bits first), and
tile.copy expands it group by group; tensor memory holds each element in an 8-bit container
(`Case.tbits`), which is what the expectation fills in.

4-bit elements: tile.copy lowers whole-byte elements only (tile_to_nvvm.lower_copy raises for 4-bit), so
for 4-bit cases the kernel has no tile.copy and a hand-written PTX prologue copies a shared-memory image
from the global argument instead; the image places element x at bit address apply_bits(x) of the shared
layout (the layout algebra's map, i.e. what tile.copy would compute), little-endian nibbles. The
expectation stays logical, as above.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

POISON = 0xDEADBEEF
NP_BITS = {4: "ui4", 8: "ui8", 16: "bf16", 32: "f32"}
CARRIER = {8: np.uint8, 16: np.uint16, 32: np.uint32}


@dataclass
class Case:
    name: str
    elem: str                      # MLIR element type: ui8, bf16, f32, f4E2M1FN, ...
    smem_shape: tuple
    smem_layout: str               # layout text, swizzle included ("Swizzle<64B> o S[...]")
    tmem_shape: tuple
    tmem_layout: str
    src_region: tuple | None = None  # ((offsets...), (sizes...)) or None: whole buffer
    dst_region: tuple | None = None
    cta_group: int = 1
    tmem_cols: int | None = None   # allocated columns (None: smallest power of two >= 32 that fits)
    meta: dict = field(default_factory=dict)

    @property
    def bits(self) -> int:
        from tile_mlir.dialect.types import element_bits
        return element_bits(self.elem)

    @property
    def tbits(self) -> int:
        """Bits an element occupies in tensor memory: 6-bit elements, and 4-bit elements copied from the
        padded form (decompressed), sit in 8-bit containers."""
        return 8 if self.bits == 6 or self.packing == "b4x16_p64" else self.bits

    @property
    def packing(self) -> str | None:
        """The shared tile's packing: b6x16_p32 for 6-bit elements unless meta says packing=None; 4-bit
        elements are packed unless meta says packing="b4x16_p64"."""
        default = "b6x16_p32" if self.bits == 6 else None
        return self.meta.get("packing", default) if self.bits in (4, 6) else None


def _shape(s) -> str:
    return "x".join(str(d) for d in s)


def _region_attr(prefix, region):
    if region is None:
        return []
    offs, sizes = region
    return [f"{prefix}_offsets = array<i64: {', '.join(map(str, offs))}>",
            f"{prefix}_sizes = array<i64: {', '.join(map(str, sizes))}>"]


def tmem_layout_obj(case):
    from tile_mlir.layout import parse_layout
    return parse_layout(case.tmem_layout)


def alloc_cols(case) -> int:
    """Columns the copy may touch: the tmem layout's TCol span (32-bit columns), as a power of 2 >= 32."""
    if case.tmem_cols:
        return case.tmem_cols
    from tile_mlir.layout import TCol
    lay = tmem_layout_obj(case)
    span = lay.span(TCol)
    cols = max(1, math.ceil(span * case.tbits / 32))
    n = 32
    while n < cols:
        n *= 2
    return n


def kernel_text(case: Case, name: str | None = None) -> str:
    name = name or case.name
    bits, e = case.bits, case.elem
    cg = case.cta_group
    ncols = alloc_cols(case)
    packing = f", packing {case.packing}" if case.packing else ""
    s_t = f'!tile.buffer<shared, {_shape(case.smem_shape)}x{e}, "{case.smem_layout}", align 1024{packing}>'
    t_t = f'!tile.buffer<tmem, {_shape(case.tmem_shape)}x{e}, "{case.tmem_layout}">'
    g_t = f"!tile.buffer<global, {_shape(case.smem_shape)}x{e}>"
    o_elem = "ui8" if case.tbits != bits else e  # the readback is raw tmem: sub-byte elements in 8-bit containers
    o_t = f"!tile.buffer<global, 128x{ncols * 32 // case.tbits}x{o_elem}>"
    slot_t, bar_t = "!tile.buffer<shared, 1xi32>", "!tile.buffer<shared, 1xi64>"
    args = [f"%A: {g_t}", f"%out: {o_t}"]
    if cg == 2:
        args = [f"%A: {g_t}", f"%A1: {g_t}", f"%out: {o_t}", f"%out1: {o_t}"]
    L = ['"tile.kernel"() ({', f"^bb0({', '.join(args)}):",
         f'  %smem = "tile.alloc_shared"() : () -> {s_t}',
         f'  %slot = "tile.alloc_shared"() : () -> {slot_t}',
         f'  %bar = "tile.alloc_shared"() : () -> {bar_t}',
         '  %tid = "tile.thread_id"() : () -> i32',
         '  %warp = "tile.warp_id"() : () -> i32',
         '  %c0 = arith.constant 0 : i32',
         '  %w0 = arith.cmpi eq, %warp, %c0 : i32',
         '  %t0 = arith.cmpi eq, %tid, %c0 : i32']
    if cg == 2:
        L += ['  %rank = "tile.cta_rank"() : () -> i32',
              '  %even = arith.cmpi eq, %rank, %c0 : i32',
              '  %issuer = arith.andi %t0, %even : i1']
    else:
        L += ['  %issuer = arith.andi %t0, %t0 : i1']
    cga = f"cta_group = {cg}"
    L += ['  scf.if %w0 {',
          f'    "tile.tmem.alloc"(%slot) {{num_cols = {ncols}, {cga}}} : ({slot_t}) -> ()',
          '  }',
          '  scf.if %t0 {',
          f'    "tile.mbarrier.init"(%bar) {{count = 1}} : ({bar_t}) -> ()',
          '    "tile.fence"() {kind = "mbarrier_init"} : () -> ()',
          '  }']
    # tile.copy lowers whole bytes and whole 6-bit / padded 4-bit groups, not packed 4-bit data
    plain = bits in (6, 8, 16, 32) or case.packing is not None
    if plain:
        fill = '"tile.copy"(%smem, {a}) {{scope = "cta"}} : ({s}, {g}) -> ()'
        if cg == 2:
            L += ['  scf.if %even {', "    " + fill.format(a="%A", s=s_t, g=g_t), '  } else {',
                  "    " + fill.format(a="%A1", s=s_t, g=g_t), '  }']
        else:
            L += ["  " + fill.format(a="%A", s=s_t, g=g_t)]
    L += ['  "tile.fence"() {kind = "proxy_async"} : () -> ()',
          '  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()',
          '  "tile.barrier"() : () -> ()']
    if cg == 2:  # the peer's alloc and mbarrier init must precede the even CTA's cp and multicast commit
        L += ['  "tile.barrier"() {scope = "cluster"} : () -> ()']
    L += ['  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()',
          f'  %tmem = "tile.tmem.buffer"(%slot) : ({slot_t}) -> {t_t}',
          '  scf.if %issuer {']
    scope = case.meta.get("scope", "thread")
    attrs = _region_attr("dst", case.dst_region) + _region_attr("src", case.src_region) + [cga, f'scope = "{scope}"']
    L += [f'    "tile.copy_async"(%tmem, %smem) {{{", ".join(attrs)}}} : ({t_t}, {s_t}) -> ()']
    mc = ", multicast_mask = 3" if cg == 2 else ""
    L += [f'    "tile.commit"(%bar) {{{cga}{mc}}} : ({bar_t}) -> ()', '  }',
          f'  "tile.mbarrier.wait"(%bar) {{phase = 0}} : ({bar_t}) -> ()',
          '  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()']
    load = '"tile.tmem.load"({o}, %tmem) {{col_offset = 0, num_cols = {n}, scope = "warpgroup"}} : ({ot}, {tt}) -> ()'
    if cg == 2:
        L += ['  scf.if %even {', "    " + load.format(o="%out", n=ncols, ot=o_t, tt=t_t), '  } else {',
              "    " + load.format(o="%out1", n=ncols, ot=o_t, tt=t_t), '  }']
    else:
        L += ["  " + load.format(o="%out", n=ncols, ot=o_t, tt=t_t)]
    L += kernel_end(name, 128, ncols, cg, cga, slot_t)
    return "\n".join(L) + "\n"


def kernel_end(name: str, block: int, ncols: int, cg: int, cga: str, slot_t: str) -> list[str]:
    """The lines that close a test kernel: sync the CTA (and the pair), warp 0 frees the `ncols`
    tmem columns, and the kernel op's attributes (a cluster of 2 for cta_group 2)."""
    L = ['  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()',
         '  "tile.barrier"() : () -> ()']
    if cg == 2:
        L += ['  "tile.barrier"() {scope = "cluster"} : () -> ()']
    L += ['  scf.if %w0 {',
          '    "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()',
          f'    "tile.tmem.relinquish"() {{{cga}}} : () -> ()',
          f'    "tile.tmem.dealloc"(%slot) {{num_cols = {ncols}, {cga}}} : ({slot_t}) -> ()',
          '  }',
          '  "tile.return"() : () -> ()']
    cl = ", cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>" if cg == 2 else ""
    return L + [f'}}) {{sym_name = "{name}", block = array<i32: {block}, 1, 1>{cl}}} : () -> ()']


# ----------------------------------------------------------------------------------------------------
# inputs and the independent expectation
# ----------------------------------------------------------------------------------------------------
def make_input(case: Case, rng) -> np.ndarray:
    """The logical shared tile: integer element values (bit patterns), shape smem_shape."""
    bits = case.bits
    hi = 1 << bits
    return rng.integers(0, hi, size=case.smem_shape, dtype=np.uint64)


def _region_coords(shape, region):
    """(n, rank) int64 array: the coordinates of the region (whole buffer for None), row-major."""
    if region is None:
        offs, sizes = (0,) * len(shape), tuple(shape)
    else:
        offs, sizes = region
    return np.indices(sizes).reshape(len(sizes), -1).T + np.array(offs, dtype=np.int64)


def apply_np(lay, coords: np.ndarray, shape) -> list[dict]:
    """`lay.apply(c, shape)` for every row c of coords at once: one {axis: offsets array} per replica.
    Evaluates the layout's definition (tile_layout docstring: the row-major flat index over `shape`,
    unflattened over the shard extents, times the strides; plus offset and each replica index) and
    checks a sample of coordinates against apply() itself, so that it cannot drift from it."""
    from tile_mlir.layout import AxisOffsets
    flat = np.ravel_multi_index(tuple(coords.T), tuple(shape))
    base = {a: np.full(len(flat), v, np.int64) for a, v in lay.offset.items()}
    for it in reversed(lay.shard):
        flat, c = np.divmod(flat, it.extent)
        base[it.axis] = base.get(it.axis, 0) + c * it.stride
    outs = []
    for r in np.ndindex(*(it.extent for it in lay.replica)):
        d = dict(base)
        for it, k in zip(lay.replica, r):
            d[it.axis] = d.get(it.axis, 0) + k * it.stride
        outs.append(d)
    for i in np.linspace(0, len(coords) - 1, num=min(7, len(coords)), dtype=np.int64):
        ref = lay.apply(tuple(int(v) for v in coords[i]), shape)
        got = [AxisOffsets((a, int(np.broadcast_to(v, len(coords))[i])) for a, v in d.items()) for d in outs]
        assert got == ref, (tuple(coords[i]), got, ref)
    return outs


def expected(case: Case, A: np.ndarray) -> np.ndarray:
    """(128, alloc_cols) uint32 TMEM of the copy: POISON where nothing is written."""
    from tile_mlir.layout import TCol, TLane
    bits = case.tbits
    per = 32 // bits
    ncols = alloc_cols(case)
    src = _region_coords(case.smem_shape, case.src_region)
    dst = _region_coords(case.tmem_shape, case.dst_region)
    assert len(src) == len(dst), (len(src), len(dst))
    v = container(case, A[tuple(src.T)].astype(np.uint64))
    val = np.zeros((128, ncols), np.uint64)
    touched = np.zeros((128, ncols), bool)
    for off in apply_np(tmem_layout_obj(case), dst, case.tmem_shape):
        lane = np.broadcast_to(off.get(TLane, 0), len(dst))
        col, sub = np.divmod(np.broadcast_to(off.get(TCol, 0), len(dst)), per)
        np.bitwise_or.at(val, (lane, col), v << (sub * bits).astype(np.uint64))
        touched[lane, col] = True
    return np.where(touched, val, POISON).astype(np.uint32)


def container(case: Case, v):
    """The tmem bits of element values v: themselves, or for .b8x16.b4x16_p64 the 8-bit container of a
    4-bit value, nibble << 2 (tile-sim's model, measured on sm_103 only: docs/emulator.md A2); 6-bit values
    sit in container bits [5, 0] (A1)."""
    return v << 2 if case.packing == "b4x16_p64" else v


# ----------------------------------------------------------------------------------------------------
# sub-byte fill: a PTX prologue that copies the shared image from the global argument
# ----------------------------------------------------------------------------------------------------
_SWIZZLE_MASK = {"32B": 1, "64B": 3, "128B": 7}


def shared_image(case: Case, A: np.ndarray) -> np.ndarray:
    """Bytes of the shared buffer holding logical tile A under the shared layout (layout algebra map: the
    layout's m offset in bits, then the swizzle XOR of docs/tcgen05.md §5 on the byte address; a sample
    is checked against ComposedLayout.apply_bits)."""
    from tile_mlir.layout import ComposedLayout, m, parse_layout
    lay = parse_layout(case.smem_layout)
    inner = lay.inner if isinstance(lay, ComposedLayout) else lay
    bits = case.bits
    nbytes = (inner.span() * bits + 7) // 8
    nbytes = (nbytes + 15) // 16 * 16
    coords = _region_coords(case.smem_shape, None)
    bit = apply_np(inner, coords, case.smem_shape)[0][m] * bits
    if isinstance(lay, ComposedLayout):
        byte = bit >> 3
        byte ^= ((byte >> 7) & _SWIZZLE_MASK[lay.swizzle.value]) << 4
        bit = byte * 8 + (bit & 7)
        for i in np.linspace(0, len(coords) - 1, num=7, dtype=np.int64):
            assert lay.apply_bits(tuple(int(v) for v in coords[i]), case.smem_shape, bits)[0] == bit[i]
    img = np.zeros(nbytes, np.uint8)
    vals = (A[tuple(coords.T)].astype(np.uint64) & ((1 << bits) - 1)) << (bit % 8).astype(np.uint64)
    np.bitwise_or.at(img, bit // 8, vals.astype(np.uint8))
    return img


def pack6(A: np.ndarray) -> np.ndarray:
    """A logical 6-bit tile packed as global memory holds it: element i of the row-major order at bits
    [6i, 6i + 6), little-endian (4 elements per 3 bytes)."""
    v = A.reshape(-1, 4).astype(np.uint32) & 0x3F
    word = v[:, 0] | (v[:, 1] << 6) | (v[:, 2] << 12) | (v[:, 3] << 18)  # 24 bits
    return np.stack([word & 0xFF, (word >> 8) & 0xFF, word >> 16], axis=1).astype(np.uint8).reshape(-1)


def pack4(A: np.ndarray) -> np.ndarray:
    """A logical 4-bit tile packed as global memory holds it: element 2i in the low nibble of byte i."""
    v = A.reshape(-1, 2).astype(np.uint8) & 0xF
    return (v[:, 0] | (v[:, 1] << 4)).astype(np.uint8)


def inject_fill(ptx: str, kernel: str, nbytes: int, cta_group: int) -> str:
    """Insert, before the first instruction of `kernel`, a loop of all 128 threads copying `nbytes`
    (a multiple of 16) from the first pointer parameter (the second for CTA rank 1 of a pair) into the
    first shared buffer `<kernel>_smem0`."""
    lines = ptx.split("\n")
    start = next(i for i, l in enumerate(lines) if re.match(rf"\s*\.visible \.entry {re.escape(kernel)}\(", l))
    body = next(i for i in range(start, len(lines)) if lines[i].strip() == "{")
    i = body + 1
    while lines[i].strip().startswith((".reg", ".shared", "//")) or not lines[i].strip():
        i += 1
    sym = f"{kernel}_smem0"
    assert any(re.search(rf"\.shared .*\b{sym}\[", l) for l in lines), "fill target not found"
    pick = ""
    if cta_group == 2:
        pick = (f"\tmov.u32 %fr8, %cluster_ctarank;\n\tsetp.eq.u32 %fp2, %fr8, 1;\n"
                f"\t@%fp2 ld.param.u64 %frd1, [{kernel}_param_1];\n")
    pro = f"""	.reg .b32 %fr<10>;
	.reg .b64 %frd<4>;
	.reg .pred %fp<3>;
	ld.param.u64 %frd1, [{kernel}_param_0];
{pick}	cvta.to.global.u64 %frd1, %frd1;
	mov.u32 %fr1, %tid.x;
	mov.u32 %fr2, {sym};
$L__tile_fill:
	setp.ge.u32 %fp1, %fr1, {nbytes // 16};
	@%fp1 bra $L__tile_filled;
	mul.wide.u32 %frd2, %fr1, 16;
	add.s64 %frd3, %frd1, %frd2;
	ld.global.v4.u32 {{%fr3, %fr4, %fr5, %fr6}}, [%frd3];
	shl.b32 %fr7, %fr1, 4;
	add.s32 %fr7, %fr7, %fr2;
	st.shared.v4.u32 [%fr7], {{%fr3, %fr4, %fr5, %fr6}};
	add.s32 %fr1, %fr1, 128;
	bra.uni $L__tile_fill;
$L__tile_filled:"""
    return "\n".join(lines[:i] + [pro] + lines[i:])


# ----------------------------------------------------------------------------------------------------
# compile -> ptxas -> tile-sim
# ----------------------------------------------------------------------------------------------------
@dataclass
class Outcome:
    ptx: str
    tmem: list        # per CTA (128, ncols) uint32 from res.tmem
    readback: list    # per CTA (128, ncols) uint32 from the tmem.load buffer
    expected: list    # per CTA (128, ncols) uint32
    warnings: list
    cp_lines: list

    def mismatches(self):
        bad = []
        for c, (tm, rb, ex) in enumerate(zip(self.tmem, self.readback, self.expected)):
            for what, got in (("tmem", tm), ("readback", rb)):
                if not np.array_equal(got, ex):
                    pos = np.argwhere(got != ex)
                    ln, col = (int(v) for v in pos[0])
                    bad.append(f"CTA {c} {what}: {len(pos)} cells differ, first lane {ln} col {col}: "
                               f"got 0x{int(got[ln, col]):08x} expected 0x{int(ex[ln, col]):08x}")
        return bad


def find_ptxas():
    from tile_mlir.toolchain import find_tool
    try:
        return find_tool("ptxas")
    except Exception:
        return None


def ptxas(ptx: str, exe: str, arch: str = "sm_100a") -> None:
    import os
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "k.ptx")
        with open(p, "w") as f:
            f.write(ptx)
        r = subprocess.run([exe, f"-arch={arch}", p, "-o", os.path.join(d, "k.cubin")], capture_output=True,
                           text=True)
        if r.returncode:
            raise AssertionError(f"ptxas rejected the PTX:\n{r.stderr}")


def run_case(case: Case, *, seed: int = 0, ptxas_exe: str | None = None, compile_fn=None) -> Outcome:
    """Compile (raises TileError), assemble (if ptxas_exe), emulate (raises EmulationError), compare."""
    from tile_mlir.compiler import compile as tile_compile
    from tile_mlir.sim import run_ptx

    rng = np.random.default_rng(seed)
    ncta = case.cta_group
    inputs = [make_input(case, rng) for _ in range(ncta)]
    art = (compile_fn or tile_compile)(kernel_text(case), arch="sm_100a")
    ptx = art.ptx
    bits = case.bits
    if case.packing == "b4x16_p64":
        g_args = [pack4(A) for A in inputs]
    elif bits == 4:
        imgs = [shared_image(case, A) for A in inputs]
        ptx = inject_fill(ptx, art.kernel_name, len(imgs[0]), case.cta_group)
        g_args = imgs
    elif bits == 6:
        g_args = [pack6(A) for A in inputs]
    else:
        g_args = [np.ascontiguousarray(A.astype(CARRIER[bits])) for A in inputs]
    if ptxas_exe:
        ptxas(ptx, ptxas_exe)
    ncols = alloc_cols(case)
    outs = [np.zeros((128, ncols), np.uint32) for _ in range(ncta)]
    args = (g_args + outs) if ncta == 2 else [g_args[0], outs[0]]
    res = run_ptx(ptx, art.kernel_name, args, grid=(ncta, 1, 1), block=art.block,
                  cluster=(ncta, 1, 1), dynamic_smem=art.dynamic_smem)
    cp_lines = [ln.strip() for ln in ptx.splitlines() if ln.strip().startswith("tcgen05.cp.")]
    return Outcome(ptx=ptx, tmem=[res.tmem[c][:, :ncols] for c in range(ncta)], readback=outs,
                   expected=[expected(case, A) for A in inputs], warnings=list(res.warnings), cp_lines=cp_lines)
