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
    L += ['  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()',
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
    L += [f'}}) {{sym_name = "{name}", block = array<i32: 128, 1, 1>{cl}}} : () -> ()']
    return "\n".join(L) + "\n"


# ----------------------------------------------------------------------------------------------------
# inputs and the independent expectation
# ----------------------------------------------------------------------------------------------------
def make_input(case: Case, rng) -> np.ndarray:
    """The logical shared tile: integer element values (bit patterns), shape smem_shape."""
    bits = case.bits
    hi = 1 << bits
    return rng.integers(0, hi, size=case.smem_shape, dtype=np.uint64)


def _region_coords(shape, region):
    if region is None:
        offs, sizes = (0,) * len(shape), tuple(shape)
    else:
        offs, sizes = region
    idx = np.indices(sizes).reshape(len(sizes), -1).T + np.array(offs)
    return [tuple(int(v) for v in row) for row in idx]


def expected(case: Case, A: np.ndarray) -> np.ndarray:
    """(128, alloc_cols) uint32 TMEM of the copy: POISON where nothing is written."""
    from tile_mlir.layout import TCol, TLane
    bits = case.tbits
    per = 32 // bits
    ncols = alloc_cols(case)
    src = _region_coords(case.smem_shape, case.src_region)
    dst = _region_coords(case.tmem_shape, case.dst_region)
    assert len(src) == len(dst), (len(src), len(dst))
    lay = tmem_layout_obj(case)
    val = np.zeros((128, ncols), np.uint64)
    touched = np.zeros((128, ncols), bool)
    for s, d in zip(src, dst):
        v = container(case, int(A[s]))
        for off in lay.apply(d, case.tmem_shape):
            lane, ecol = off[TLane], off[TCol]
            col, sub = divmod(ecol, per)
            val[lane, col] |= np.uint64(v << (sub * bits))
            touched[lane, col] = True
    return np.where(touched, val, POISON).astype(np.uint32)


def container(case: Case, v: int) -> int:
    """The tmem bits of element value v: itself, or for .b8x16.b4x16_p64 the 8-bit container of a 4-bit
    value, nibble << 2 (tile-sim's model, measured on sm_103 only: docs/emulator.md A2); 6-bit values sit
    in container bits [5, 0] (A1)."""
    return v << 2 if case.packing == "b4x16_p64" else v


# ----------------------------------------------------------------------------------------------------
# sub-byte fill: a PTX prologue that copies the shared image from the global argument
# ----------------------------------------------------------------------------------------------------
def shared_image(case: Case, A: np.ndarray) -> np.ndarray:
    """Bytes of the shared buffer holding logical tile A under the shared layout (layout algebra map)."""
    from tile_mlir.layout import ComposedLayout, parse_layout
    lay = parse_layout(case.smem_layout)
    inner = lay.inner if isinstance(lay, ComposedLayout) else lay
    bits = case.bits
    nbytes = (inner.span() * bits + 7) // 8
    nbytes = (nbytes + 15) // 16 * 16
    img = np.zeros(nbytes, np.uint8)
    for c in _region_coords(case.smem_shape, None):
        if isinstance(lay, ComposedLayout):
            bit = lay.apply_bits(c, case.smem_shape, bits)[0]
        else:
            from tile_mlir.layout import m
            bit = lay.apply(c, case.smem_shape)[0][m] * bits
        img[bit // 8] |= np.uint8((int(A[c]) & ((1 << bits) - 1)) << (bit % 8))
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


# ----------------------------------------------------------------------------------------------------
# random configurations for the differential fuzzer (bench/fuzz.py, test_fuzz_differential.py)
# ----------------------------------------------------------------------------------------------------
class RngChooser:
    """Choices from a numpy Generator (bench/fuzz.py); hypothesis supplies its own with the same API."""

    def __init__(self, rng):
        self.rng = rng

    def int(self, lo, hi):  # inclusive
        return int(self.rng.integers(lo, hi + 1))

    def pick(self, seq):
        return seq[int(self.rng.integers(0, len(seq)))]

    def bool(self, p=0.5):
        return bool(self.rng.random() < p)


ELEMS = {4: ("ui4", "f4E2M1FN"), 6: ("f6E2M3FN", "f6E3M2FN", "i6"), 8: ("ui8", "f8E4M3FN"), 16: ("bf16", "f16"),
         32: ("f32", "i32")}
PITCH = {"none": 16, "32B": 32, "64B": 64, "128B": 128}
INVALID_KINDS = ("mid_atom_row", "mid_atom_col", "wrong_swizzle", "missing_replica", "scope_warp",
                 "dtype_6bit", "unaligned_column")
# the planner check (or dispatch predicate) each invalid kind must be rejected by
INVALID_CHECK = {"mid_atom_row": "alignment.src_start", "mid_atom_col": "alignment.src_start",
                 "wrong_swizzle": "swizzle", "missing_replica": "validate_smem_tmem_copy",
                 "scope_warp": "exec_scope", "dtype_6bit": "dtype", "unaligned_column": "alignment.tmem_col"}


def _shared_layout(bits, mode, rows, k):
    """(layout text, atom K in elements): K-major (kmajor_layout) when swizzled; without swizzle the
    core-matrix layout: 16-byte K chunks, each `rows` x 16 B contiguous."""
    epc = 128 // bits
    if mode == "none":
        nk = k // epc
        lay = f"S[({rows}, {nk}, {epc}) : ({epc}, {rows * epc}, 1)]" if nk > 1 else f"S[({rows}, {epc}) : ({epc}, 1)]"
        return lay, epc
    from tile_mlir.layout import SwizzleMode, kmajor_layout
    return str(kmajor_layout([rows, k], bits, SwizzleMode(mode))), PITCH[mode] * 8 // bits


def random_case(ch, invalid: str | None = None, idx: int = 0) -> Case:
    """A random smem -> tmem copy. invalid=None: valid by construction (rows start on 8-row atoms when
    swizzled, K start on atom boundaries, 1..8 cps, tmem columns multiples of 4, cta_group 2 in ~1/6);
    otherwise one of INVALID_KINDS, which the dispatch must reject."""
    bits = ch.pick((4, 6, 8, 16, 32))
    elem = ch.pick(ELEMS[bits])
    bits = 8 if bits == 6 else bits  # geometry: 6-bit data moves as .b6x16_p32 units into 8-bit containers
    mode = ch.pick(("none", "32B", "64B", "128B"))
    epc = 128 // bits          # elements per 16-byte chunk = per cp row
    e32 = 32 // bits
    pitch = PITCH[mode]
    atom_k = pitch * 8 // bits
    # K extent of the copy: n cps of one chunk each; across atoms only in whole atoms
    per_atom = atom_k // epc   # 1, 2, 4 or 8 cps per swizzle atom row
    if per_atom == 1 or ch.bool(0.5):
        n_cps = per_atom * ch.int(1, 8 // per_atom)       # whole atoms
    else:
        n_cps = ch.int(1, per_atom)                       # K steps inside one atom
    kw = n_cps * epc
    atoms = -(-kw // atom_k)
    k = (atoms + ch.int(0, 2)) * atom_k
    rows = ch.pick((32, 40, 64, 96, 128)) if mode == "none" else ch.pick((32, 64, 128))
    while rows * k * bits // 8 > 32768 and rows > 32:
        rows //= 2
    lay, _ = _shared_layout(bits, mode, rows, k)
    r0 = ch.int(0, rows - 32) if mode == "none" else 8 * ch.int(0, (rows - 32) // 8)
    if mode == "none":
        k0 = epc * ch.int(0, k // epc - n_cps)
    else:
        k0 = atom_k * ch.int(0, k // atom_k - atoms)
    src_region = ((r0, k0), (32, kw))
    # tmem: n cps, tiles `gap` chunks apart, starting at a random column (multiple of 4)
    gap = ch.pick((1, 1, 2))
    span_cols = (n_cps - 1) * 4 * gap + 4
    c0 = 4 * ch.int(0, (512 - span_cols) // 4 // (2 if ch.bool(0.7) else 1))
    if gap == 1:
        tw = c0 * e32 + kw + 4 * e32 * ch.int(0, 2)
        tw = min(tw, 512 * e32)
        tmem_shape = (32, tw)
        tmem = f"S[(32, {tw}) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]"
        dst_region = ((0, c0 * e32), (32, kw))
    else:
        tiles = n_cps + (c0 // (4 * gap)) + 1
        tiles = min(tiles, 512 // (4 * gap))
        tmem_shape = (32, tiles, epc)
        tmem = f"S[(32, {tiles}, {epc}) : (1@TLane, {gap * epc}@TCol, 1@TCol)] + R[4 : 32@TLane]"
        t0 = min(c0 // (4 * gap), tiles - n_cps)
        dst_region = ((0, t0, 0), (32, n_cps, epc))
    cg = 2 if ch.bool(1 / 6) else 1
    case = Case(f"fz{idx}", elem, (rows, k), lay, tmem_shape, tmem, src_region=src_region,
                dst_region=dst_region, cta_group=cg)
    if invalid is None:
        return case
    case.meta["invalid"] = invalid
    if invalid in ("mid_atom_row", "mid_atom_col"):
        if mode == "none":
            mode = ch.pick(("32B", "64B", "128B"))
        return random_case_forced(ch, bits, elem, mode, "row" if invalid == "mid_atom_row" else "col", idx)
    elif invalid == "wrong_swizzle":
        # rows pitch P of K-major data, declared with another swizzle (or none)
        true_mode = ch.pick(("32B", "64B", "128B"))
        other = ch.pick([x for x in ("none", "32B", "64B", "128B") if x != true_mode])
        p = PITCH[true_mode]
        kk = p * 8 // bits
        body = f"S[(32, {kk}) : ({kk}, 1)]"
        case.smem_shape, case.src_region = (32, kk), ((0, 0), (32, epc))
        case.smem_layout = body if other == "none" else f"Swizzle<{other}> o {body}"
        case.tmem_shape, case.tmem_layout, case.dst_region = (32, epc), t2d_text(32, epc), None
    elif invalid == "missing_replica":
        case.tmem_layout = case.tmem_layout.replace(" + R[4 : 32@TLane]", "")
    elif invalid == "scope_warp":
        case.meta["scope"] = "warp"
    elif invalid == "dtype_6bit":  # packed 6-bit data in shared memory (no packing b6x16_p32)
        case.elem = ch.pick(ELEMS[6])
        case.meta["packing"] = None
        case.smem_shape, case.smem_layout = (32, 64), "S[(32, 64) : (64, 1)]"
        case.src_region, case.tmem_shape, case.dst_region = None, (32, 64), None
        case.tmem_layout = t2d_text(32, 64)
        case.cta_group = 1
    elif invalid == "unaligned_column":
        bad = 4 * ch.int(0, 100) + ch.int(1, 3)   # whole 32-bit column, not a multiple of 4
        tw = (bad + 4) * e32 + kw
        case.tmem_shape, case.tmem_layout = (32, tw), t2d_text(32, tw)
        case.dst_region = ((0, bad * e32), (32, kw))
    return case


def t2d_text(rows, cols):
    return f"S[({rows}, {cols}) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]"


def random_case_forced(ch, bits, elem, mode, what, idx):
    """An invalid swizzled copy: start mid-atom by rows (1..7) or by K (16 B .. P - 16 B)."""
    epc = 128 // bits
    pitch = PITCH[mode]
    atom_k = pitch * 8 // bits
    rows, k = 64, 2 * atom_k
    lay, _ = _shared_layout(bits, mode, rows, k)
    if what == "row":
        region = ((ch.int(1, 7), 0), (32, epc))
    else:
        region = ((0, epc * ch.int(1, atom_k // epc - 1)), (32, epc))
    c = Case(f"fz{idx}", elem, (rows, k), lay, (32, epc), t2d_text(32, epc), src_region=region)
    c.meta["invalid"] = "mid_atom_row" if what == "row" else "mid_atom_col"
    return c
