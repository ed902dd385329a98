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


def _module():
    """A new module in a new tile_mlir context; the context and an unknown location stay current while
    the caller builds (tile_mlir.dialect.builders)."""
    from contextlib import ExitStack

    from tile_mlir.frontend.context import make_context
    from tile_mlir.mlir import ir

    stack = ExitStack()
    stack.enter_context(make_context())
    stack.enter_context(ir.Location.unknown())
    return stack, ir.Module.create()


def _region(region):
    """((offsets...), (sizes...)) -> the builders' [(begin, end), ...]; None stays None."""
    if region is None:
        return None
    offs, sizes = region
    return [(o, o + n) for o, n in zip(offs, sizes)]


def i32(value: int):
    from tile_mlir.mlir import arith, ir
    return arith.constant(ir.IntegerType.get_signless(32), value)


def cmpi(pred: str, a, b):
    from tile_mlir.mlir import arith
    return arith.cmpi(getattr(arith.CmpIPredicate, pred), a, b)


def per_cta(cg: int, even, body) -> None:
    """body(0) for cta_group 1; for a pair, scf.if even { body(0) } else { body(1) }."""
    from tile_mlir.dialect import builders as tb

    if cg == 1:
        body(0)
        return
    with tb.when(even) as branch:
        body(0)
    with branch.otherwise():
        body(1)


def kernel_text(case: Case, name: str | None = None):
    """The case's kernel as a tile IR module (built with the op builders; the name is historical)."""
    from tile_mlir.dialect import builders as tb
    from tile_mlir.mlir import arith

    name = name or case.name
    bits, e = case.bits, case.elem
    cg = case.cta_group
    ncols = alloc_cols(case)
    stack, module = _module()
    with stack:
        s_t = tb.buffer_t("shared", case.smem_shape, e, case.smem_layout, align=1024, packing=case.packing)
        t_t = tb.buffer_t("tmem", case.tmem_shape, e, case.tmem_layout)
        g_t = tb.buffer_t("global", case.smem_shape, e)
        o_elem = "ui8" if case.tbits != bits else e  # the readback is raw tmem: sub-byte elements in 8-bit containers
        o_t = tb.buffer_t("global", (128, ncols * 32 // case.tbits), o_elem)
        params = {"A": g_t, "out": o_t} if cg == 1 else {"A": g_t, "A1": g_t, "out": o_t, "out1": o_t}
        with tb.kernel(module, name, params, block=(128, 1, 1),
                       **(dict(cluster=(2, 1, 1), grid=(2, 1, 1)) if cg == 2 else {})) as (_, args):
            ins, outs = (args[:1], args[1:]) if cg == 1 else (args[:2], args[2:])
            smem = tb.alloc_shared(s_t)
            slot = tb.alloc_shared(tb.buffer_t("shared", (1,), "i32"))
            bar = tb.alloc_shared(tb.buffer_t("shared", (1,), "i64"))
            tid, warp = tb.thread_id(), tb.warp_id()
            c0 = i32(0)
            w0, t0 = cmpi("eq", warp, c0), cmpi("eq", tid, c0)
            even = None
            # a warp-scope copy (which the planner refuses for tcgen05.cp: exec_scope) is issued by a whole
            # warp, or the verifier's scope check (dialect/cta_checks.py) refuses one thread's first
            first = w0 if case.meta.get("scope") == "warp" else t0
            if cg == 2:
                even = cmpi("eq", tb.cta_rank(), c0)
                issuer = arith.andi(first, even)
            else:
                issuer = arith.andi(first, first)
            with tb.when(w0):
                tb.tmem_alloc(slot, ncols, cg)
            with tb.when(t0):
                tb.mbarrier_init(bar, 1)
                tb.fence("mbarrier_init")
            # tile.copy lowers whole bytes and whole 6-bit / padded 4-bit groups, not packed 4-bit data
            if bits in (6, 8, 16, 32) or case.packing is not None:
                per_cta(cg, even, lambda r: tb.copy(smem, ins[r], scope="cta"))
            tb.fence("proxy_async")
            tb.fence("tcgen05_before_sync")
            tb.barrier()
            if cg == 2:  # the peer's alloc and mbarrier init must precede the even CTA's cp and multicast commit
                tb.barrier("cluster")
            tb.fence("tcgen05_after_sync")
            tmem = tb.tmem_buffer(slot, t_t)
            with tb.when(issuer):
                tb.copy_async(tmem, smem, cta_group=cg, scope=case.meta.get("scope", "thread"),
                              dst_region=_region(case.dst_region), src_region=_region(case.src_region))
                tb.commit(bar, cg, 3 if cg == 2 else None)
            tb.mbarrier_wait(bar, 0)
            tb.fence("tcgen05_after_sync")
            per_cta(cg, even, lambda r: tb.tmem_load(outs[r], tmem, ncols, 0, "warpgroup"))
            kernel_end(cg, ncols, slot, w0)
    return module


def kernel_end(cg: int, ncols: int, slot, w0) -> None:
    """The ops that close a test kernel: sync the CTA (and the pair), warp 0 (w0) frees the `ncols`
    tmem columns of `slot`, tile.return."""
    from tile_mlir.dialect import builders as tb

    tb.fence("tcgen05_before_sync")
    tb.barrier()
    if cg == 2:
        tb.barrier("cluster")
    with tb.when(w0):
        tb.fence("tcgen05_after_sync")
        tb.tmem_relinquish(cg)
        tb.tmem_dealloc(slot, ncols, cg)
    tb.ret()


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
    from tile_mlir.driver.toolchain import find_tool
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
    from tile_mlir.driver.compiler import compile as tile_compile
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
