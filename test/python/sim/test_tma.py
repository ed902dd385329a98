"""TMA on tile-sim: cp.async.bulk.tensor loads (1D-5D, multicast), stores and their bulk groups, the
mbarrier tx-count, the proxy and visibility checks, prefetches and tensor-map validation.  Hand-written
PTX (every kernel assembled by ptxas -arch=sm_90a); the expected shared-memory images are literal
tables from the PTX ISA (§5.5.7 "Swizzling modes": the 16-byte chunk order of each 128-byte line) and
values measured on the H200 (docs/emulator.md Table A), never derived from the emulator's code."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, TensorMap, run_ptx

HEAD = ".version 8.0\n.target sm_90a\n.address_size 64\n"


def kernel(body, *, rank=2, extra_params="", smem=16384):
    """Kernel k(tmap, out): %rd3 = generic address of the tensor map, %rd1 = out, %r2 = `buf`
    (1024-aligned shared), %r3 = mbar, coordinates in %r30..; one thread (tid 0) runs `body`,
    then the whole CTA dumps `buf` to out after bar.sync."""
    return HEAD + f""".visible .entry k(
    .param .align 64 .b8 tmap[128],
    .param .u64 out{extra_params}
)
.reqntid 32
{{
    .reg .pred %p<8>;
    .reg .b32 %r<64>;
    .reg .b64 %rd<16>;
    .shared .align 1024 .b8 buf[{smem}];
    .shared .align 8 .b64 mbar;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, buf;
    mov.u32 %r3, mbar;
    ld.param.u64 %rd1, [out];
    mov.u64 %rd3, tmap;
    cvta.param.u64 %rd3, %rd3;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra JOIN;
{body}
JOIN:
    bar.sync 0;
    shl.b32 %r20, %r1, 2;
DUMP:
    setp.ge.u32 %p2, %r20, {smem};
    @%p2 bra END;
    add.u32 %r21, %r2, %r20;
    ld.shared.u32 %r22, [%r21];
    cvt.u64.u32 %rd5, %r20;
    add.u64 %rd6, %rd1, %rd5;
    st.global.u32 [%rd6], %r22;
    add.u32 %r20, %r20, 128;
    bra.uni DUMP;
END:
    ret;
}}
"""


def load_body(coords, *, dst="%r2", tx=None, wait=True):
    """Thread 0: init mbar, arrive.expect_tx, TMA-load the box at `coords` into `dst`, wait."""
    n = len(coords)
    cs = ", ".join(str(c) for c in coords)
    lines = ["    mbarrier.init.shared::cta.b64 [%r3], 1;"]
    if tx is not None:
        lines.append(f"    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], {tx};")
    lines.append(f"    cp.async.bulk.tensor.{n}d.shared::cluster.global.tile"
                 f".mbarrier::complete_tx::bytes [{dst}], [%rd3, {{{cs}}}], [%r3];")
    if wait:
        lines += ["WAIT:",
                  "    mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;",
                  "    @!%p3 bra WAIT;"]
    return "\n".join(lines)


def run(ptx, tm, smem=16384, assemble=None, **kw):
    if assemble is not None:
        assemble(ptx, "sm_90a")
    out = np.zeros(smem, np.uint8)
    res = run_ptx(ptx, "k", [tm, out], block=(32, 1, 1), **kw)
    return out, res


def chunk_labels(rows, row_bytes):
    """uint8 rows whose 16-byte chunk j of row r holds the byte 16 * r + j in every position."""
    g = np.zeros((rows, row_bytes), np.uint8)
    for r in range(rows):
        for j in range(row_bytes // 16):
            g[r, 16 * j:16 * j + 16] = 16 * r + j
    return g


# PTX ISA §5.5.7, the swizzle tables: for each 128-byte line of shared memory (the line index
# within the repeat), the physical position of logical 16-byte chunk 0..7 of the line
SWIZZLE_TABLES = {
    "32b": [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6]],
    "64b": [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6], [2, 3, 0, 1, 6, 7, 4, 5],
            [3, 2, 1, 0, 7, 6, 5, 4]],
    "128b": [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6], [2, 3, 0, 1, 6, 7, 4, 5],
             [3, 2, 1, 0, 7, 6, 5, 4], [4, 5, 6, 7, 0, 1, 2, 3], [5, 4, 7, 6, 1, 0, 3, 2],
             [6, 7, 4, 5, 2, 3, 0, 1], [7, 6, 5, 4, 3, 2, 1, 0]],
}
SPAN = {"32b": 32, "64b": 64, "128b": 128}


@pytest.mark.parametrize("start", [0, 128, 384])
@pytest.mark.parametrize("swizzle", ["32b", "64b", "128b"])
def test_swizzle_tables_on_absolute_addresses(swizzle, start, assemble):
    """A box of full-span rows lands chunk by chunk where the PTX table puts it, the line index
    counted from the absolute shared address (a start inside the repeat shifts the phase)."""
    span = SPAN[swizzle]
    rows = 16
    g = chunk_labels(rows, span)
    tm = TensorMap("uint8", g, (span, rows), (span,), (span, rows), swizzle=swizzle)
    body = f"    add.u32 %r4, %r2, {start};\n" + load_body((0, 0), dst="%r4", tx=rows * span)
    out, _ = run(kernel(body), tm, assemble=assemble)
    table = SWIZZLE_TABLES[swizzle]
    for r in range(rows):
        for j in range(span // 16):
            logical = start + r * span + 16 * j  # offset of the chunk before the swizzle
            line, k = logical // 128, (logical % 128) // 16
            phys = 128 * line + 16 * table[line % len(table)][k]
            assert (out[phys:phys + 16] == 16 * r + j).all(), (r, j)


def test_no_swizzle_dense_rows_and_zero_fill(assemble):
    """Without swizzle rows are dense at the box's inner bytes; out-of-bounds elements (a box
    crossing the tensor's first and last column and row) are zeros."""
    g = (np.arange(6 * 24, dtype=np.uint32).reshape(6, 24) + 1)
    tm = TensorMap("uint32", g, (20, 6), (96,), (8, 4))  # 20 valid columns of rows padded to 24
    out, _ = run(kernel(load_body((16, 4), tx=8 * 4 * 4)), tm, assemble=assemble)
    img = out[:128].view(np.uint32).reshape(4, 8)
    want = np.zeros((4, 8), np.uint32)
    want[:2, :4] = g[4:6, 16:20]  # rows 4, 5 and columns 16..19 exist
    np.testing.assert_array_equal(img, want)


def test_negative_coordinates_and_oob_nan(assemble):
    g = np.arange(1, 65, dtype=np.float32).reshape(8, 8)
    tm = TensorMap("float32", g, (8, 8), (32,), (8, 2), oob_fill="nan_request_zero_fma")
    out, _ = run(kernel(load_body((-4, -1), tx=64)), tm, assemble=assemble)
    img = out[:64].view(np.uint32).reshape(2, 8)
    assert (img[0] == 0x7FF77FF7).all()  # row -1: the H200's OOB-NaN, 0x7FF7 per 16-bit half (A23)
    assert (img[1, :4] == 0x7FF77FF7).all()
    np.testing.assert_array_equal(img[1, 4:], g[0, :4].view(np.uint32))


@pytest.mark.parametrize("dtype, fill", [("float16", 0x7FF7), ("bfloat16", 0x7FF7),
                                         ("float64", 0x7FF77FF77FF77FF7)])
def test_oob_nan_per_type(dtype, fill):
    npd = {"float16": np.uint16, "bfloat16": np.uint16, "float64": np.uint64}[dtype]
    g = np.ones((2, 8), npd)
    esize = np.dtype(npd).itemsize
    tm = TensorMap(dtype, g, (8, 2), (8 * esize,), (16 // esize * 2, 1),
                   oob_fill="nan_request_zero_fma")
    out, _ = run(kernel(load_body((8, 0), tx=32)), tm)
    np.testing.assert_array_equal(out[:32].view(npd), [fill] * (32 // esize))


# tfloat32 loads as measured on the H200 (A28): round to nearest even at 10 mantissa bits
TF32 = [(0x3F801000, 0x3F800000), (0x3F803000, 0x3F804000), (0x3F801001, 0x3F802000),
        (0xBF800FFF, 0xBF800000), (0xFFC00001, 0x7FFFE000), (0x7F800001, 0x7FFFE000),
        (0x00001FFF, 0x00002000), (0x7F7FF000, 0x7F800000), (0x7F800000, 0x7F800000)]


@pytest.mark.parametrize("dtype", ["tfloat32", "tfloat32_ftz"])
def test_tfloat32_rounding(dtype):
    src = np.array([a for a, _ in TF32] + [0] * (16 - len(TF32)), np.uint32).reshape(2, 8)
    tm = TensorMap(dtype, src, (8, 2), (32,), (8, 2))
    out, _ = run(kernel(load_body((0, 0), tx=64)), tm)
    np.testing.assert_array_equal(out[:4 * len(TF32)].view(np.uint32), [b for _, b in TF32])


def test_element_strides_5d(assemble):
    """Rank 5 with traversal strides 2 and 3: ceil(box / stride) elements per dimension."""
    g = np.arange(2 * 3 * 4 * 6 * 16, dtype=np.uint8).reshape(2, 3, 4, 6, 16)
    dims = (16, 6, 4, 3, 2)
    strides = (16, 96, 384, 1152)
    tm = TensorMap("uint8", g, dims, strides, (16, 5, 2, 3, 1), element_strides=(1, 2, 1, 3, 1))
    n = 16 * 3 * 2 * 1 * 1
    out, _ = run(kernel(load_body((0, 1, 2, 0, 1), tx=n)), tm, assemble=assemble)
    want = g[1:2, 0:1, 2:4, 1:6:2, :]  # dim 3 (index 1) from 1 by 2; dim 1 (index 3) from 0 by 3
    np.testing.assert_array_equal(out[:n], want.reshape(-1))


def test_tx_count_short_never_completes():
    """Expecting more bytes than the box moves leaves the phase open: the wait deadlocks."""
    g = np.zeros((4, 16), np.uint8)
    tm = TensorMap("uint8", g, (16, 4), (16,), (16, 4))
    with pytest.raises(EmulationError, match="deadlock"):
        run(kernel(load_body((0, 0), tx=65)), tm)


def test_copy_before_expect_tx_completes(assemble):
    """complete_tx may come first (tx-count transiently negative, PTX mbarrier)."""
    g = np.arange(64, dtype=np.uint8).reshape(4, 16)
    tm = TensorMap("uint8", g, (16, 4), (16,), (16, 4))
    body = load_body((0, 0), wait=False) + """
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 64;
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], 0;
    @!%p3 bra WAIT;"""
    out, _ = run(kernel(body), tm, assemble=assemble)
    np.testing.assert_array_equal(out[:64], g.reshape(-1))


def test_read_before_wait_is_a_race():
    g = np.arange(64, dtype=np.uint8).reshape(4, 16)
    tm = TensorMap("uint8", g, (16, 4), (16,), (16, 4))
    body = load_body((0, 0), tx=64, wait=False) + "\n    ld.shared.u32 %r9, [%r2];"
    with pytest.raises(EmulationError, match="not observed the completion of phase 0"):
        run(kernel(body), tm)


def test_misaligned_innermost_coordinate():
    g = np.zeros((4, 16), np.uint16)
    tm = TensorMap("uint16", g, (16, 4), (32,), (8, 4))
    with pytest.raises(EmulationError, match="not a multiple of 16 bytes"):
        run(kernel(load_body((4, 0), tx=64)), tm)


def test_destination_alignment():
    g = np.zeros((4, 16), np.uint8)
    tm = TensorMap("uint8", g, (16, 4), (16,), (16, 4))
    body = "    add.u32 %r4, %r2, 64;\n" + load_body((0, 0), dst="%r4", tx=64)
    with pytest.raises(EmulationError, match="not 128-byte aligned"):
        run(kernel(body), tm)


def test_tensor_map_operand_must_be_a_bound_map():
    g = np.zeros((4, 16), np.uint8)
    tm = TensorMap("uint8", g, (16, 4), (16,), (16, 4))
    body = load_body((0, 0), tx=64).replace("[%rd3, {", "[%rd1, {")
    with pytest.raises(EmulationError, match="is not a tensor-map parameter"):
        run(kernel(body), tm)


def test_prefetches(assemble):
    g = np.arange(64, dtype=np.uint8).reshape(4, 16)
    tm = TensorMap("uint8", g, (16, 4), (16,), (16, 4))
    body = ("    prefetch.param.tensormap [tmap];\n    prefetch.tensormap [%rd3];\n"
            "    cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd3, {0, 0}];\n"
            + load_body((0, 0), tx=64))
    out, _ = run(kernel(body), tm, assemble=assemble)
    np.testing.assert_array_equal(out[:64], g.reshape(-1))


def test_param_symbol_as_tensor_map_operand_is_refused():
    """ptxas rejects `[tmap, {..}]` with the parameter itself (a state-space mismatch)."""
    g = np.zeros((4, 16), np.uint8)
    tm = TensorMap("uint8", g, (16, 4), (16,), (16, 4))
    body = load_body((0, 0), tx=64).replace("[%rd3, {", "[tmap, {")
    with pytest.raises(EmulationError, match="must be a register holding its generic address"):
        run(kernel(body), tm)


# ------------------------------------------------------------------------------- multicast
MCAST = HEAD + """.visible .entry k(
    .param .align 64 .b8 tmap[128],
    .param .u64 out,
    .param .u32 mask
)
.reqntid 32
{
    .reg .pred %p<8>;
    .reg .b32 %r<64>;
    .reg .b64 %rd<16>;
    .reg .b16 %rs<4>;
    .shared .align 1024 .b8 buf[1024];
    .shared .align 8 .b64 mbar;
    mov.u32 %r1, %tid.x;
    mov.u32 %r7, %cluster_ctarank;
    ld.param.u32 %r8, [mask];
    cvt.u16.u32 %rs1, %r8;
    mov.u64 %rd3, tmap;
    cvta.param.u64 %rd3, %rd3;
    setp.ne.u32 %p1, %r1, 0;
    shr.u32 %r9, %r8, %r7;
    and.b32 %r9, %r9, 1;
    setp.eq.u32 %p4, %r9, 1;
    @!%p1 mbarrier.init.shared::cta.b64 [mbar], 1;
    fence.mbarrier_init.release.cluster;
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    @%p1 bra JOIN;
    @%p4 mbarrier.arrive.expect_tx.shared::cta.b64 _, [mbar], 64;
    setp.ne.u32 %p5, %r7, 0;
    @%p5 bra WAIT;
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [buf], [%rd3, {0, 0}], [mbar], %rs1;
WAIT:
    @!%p4 bra JOIN;
    mbarrier.try_wait.parity.shared::cta.b64 %p3, [mbar], 0;
    @!%p3 bra WAIT;
JOIN:
    bar.sync 0;
    ld.param.u64 %rd1, [out];
    mov.u32 %r10, %ctaid.x;
    mul.wide.u32 %rd4, %r10, 64;
    add.u64 %rd1, %rd1, %rd4;
    shl.b32 %r11, %r1, 2;
    setp.ge.u32 %p6, %r11, 64;
    @%p6 bra END;
    mov.u32 %r12, buf;
    add.u32 %r12, %r12, %r11;
    ld.shared.u32 %r13, [%r12];
    cvt.u64.u32 %rd5, %r11;
    add.u64 %rd6, %rd1, %rd5;
    st.global.u32 [%rd6], %r13;
END:
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    ret;
}
"""


@pytest.mark.parametrize("mask", [1, 2, 3])
def test_multicast_to_the_cluster_ranks_of_the_mask(mask, assemble):
    assemble(MCAST, "sm_90a")
    g = np.arange(64, dtype=np.uint8).reshape(4, 16) + 1
    tm = TensorMap("uint8", g, (16, 4), (16,), (16, 4))
    out = np.zeros(4 * 64, np.uint8)
    run_ptx(MCAST, "k", [tm, out, mask], grid=(4, 1, 1), block=(32, 1, 1), cluster=(2, 1, 1))
    for cta in range(4):  # two clusters of two: the mask names cluster ranks (A26)
        got = out[64 * cta:64 * cta + 64]
        if mask >> (cta % 2) & 1:
            np.testing.assert_array_equal(got, g.reshape(-1))
        else:
            assert not got.any()


# ------------------------------------------------------------------------------- stores
def store_kernel(fill, *, fence=True, after=""):
    """Thread 0 writes `fill` u32 words 0x01010101 * (i + 1) at buf (st.shared), optionally
    fences, TMA-stores the 2D box at {0, 0} and waits for its bulk group."""
    return HEAD + f""".visible .entry k(
    .param .align 64 .b8 tmap[128]
)
.reqntid 32
{{
    .reg .pred %p<8>;
    .reg .b32 %r<64>;
    .reg .b64 %rd<16>;
    .shared .align 1024 .b8 buf[1024];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra END;
    mov.u64 %rd3, tmap;
    cvta.param.u64 %rd3, %rd3;
    mov.u32 %r2, buf;
    mov.u32 %r3, 0;
FILL:
    add.u32 %r4, %r3, 1;
    mul.lo.u32 %r4, %r4, 16843009;
    shl.b32 %r5, %r3, 2;
    add.u32 %r5, %r5, %r2;
    st.shared.u32 [%r5], %r4;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p2, %r3, {fill};
    @%p2 bra FILL;
{"    fence.proxy.async.shared::cta;" if fence else ""}
    cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd3, {{0, 0}}], [buf];
    cp.async.bulk.commit_group;
{after}
END:
    ret;
}}
"""


def test_store_clips_dimension_0_at_16_bytes(assemble):
    """A box of 16 x 3 bytes over a 10 x 2 tensor in rows of 16: the H200 writes every byte of the
    rows' first 16-byte chunk (A27), and nothing of row 2."""
    ptx = store_kernel(12, after="    cp.async.bulk.wait_group 0;")
    assemble(ptx, "sm_90a")
    g = np.full((3, 16), 0xEE, np.uint8)
    tm = TensorMap("uint8", g, (10, 2), (16,), (16, 3))
    run_ptx(ptx, "k", [tm], block=(32, 1, 1))
    words = (np.arange(12, dtype=np.uint32) + 1) * 0x01010101
    np.testing.assert_array_equal(g[:2].reshape(-1), words[:8].view(np.uint8))
    assert (g[2] == 0xEE).all()


def test_store_needs_the_proxy_fence():
    ptx = store_kernel(4, fence=False, after="    cp.async.bulk.wait_group 0;")
    g = np.zeros((1, 16), np.uint8)
    tm = TensorMap("uint8", g, (16, 1), (16,), (16, 1))
    with pytest.raises(EmulationError, match="with no fence.proxy.async between them"):
        run_ptx(ptx, "k", [tm], block=(32, 1, 1))


def test_store_source_reuse_before_wait_read():
    after = "    st.shared.u32 [buf], 7;\n    cp.async.bulk.wait_group.read 0;"
    g = np.zeros((1, 16), np.uint8)
    tm = TensorMap("uint8", g, (16, 1), (16,), (16, 1))
    with pytest.raises(EmulationError, match="before a cp.async.bulk.wait_group"):
        run_ptx(store_kernel(4, after=after), "k", [tm], block=(32, 1, 1))


def test_store_not_waited_for():
    g = np.zeros((1, 16), np.uint8)
    tm = TensorMap("uint8", g, (16, 1), (16,), (16, 1))
    with pytest.raises(EmulationError, match="not waited for"):
        run_ptx(store_kernel(4), "k", [tm], block=(32, 1, 1))
    res = run_ptx(store_kernel(4), "k", [tm], block=(32, 1, 1), strict=False)
    assert any("not waited for" in w for w in res.warnings)
    assert g[0, 0] == 1  # the writes are made at exit


def test_store_negative_coordinate_faults():
    ptx = store_kernel(4, after="    cp.async.bulk.wait_group 0;").replace("{0, 0}", "{0, -1}")
    g = np.zeros((2, 16), np.uint8)
    tm = TensorMap("uint8", g, (16, 2), (16,), (16, 1))
    with pytest.raises(EmulationError, match="negative box coordinates"):
        run_ptx(ptx, "k", [tm], block=(32, 1, 1))


def test_store_shares_the_pointer_arguments_allocation():
    """A map over an array also passed as a pointer writes into the same allocation."""
    ptx = HEAD + store_kernel(4, after="    cp.async.bulk.wait_group 0;").split(HEAD)[1].replace(
        ".param .align 64 .b8 tmap[128]\n", ".param .align 64 .b8 tmap[128],\n    .param .u64 p\n")
    g = np.zeros((1, 16), np.uint8)
    tm = TensorMap("uint8", g, (16, 1), (16,), (16, 1))
    run_ptx(ptx, "k", [tm, g], block=(32, 1, 1))
    assert g[0, 0] == 1 and g[0, 15] == 4


# ------------------------------------------------------------------------------- non-tensor bulk
BULK = HEAD + """.visible .entry k(
    .param .u64 src,
    .param .u64 dst
)
.reqntid 32
{
    .reg .pred %p<8>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    .shared .align 128 .b8 buf[256];
    .shared .align 8 .b64 mbar;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra END;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mbarrier.init.shared::cta.b64 [mbar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [mbar], 256;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 256, [mbar];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [mbar], 0;
    @!%p2 bra WAIT;
    cp.async.bulk.global.shared::cta.bulk_group [%rd2], [buf], 256;
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
END:
    ret;
}
"""


def test_bulk_copy_round_trip(assemble):
    assemble(BULK, "sm_90a")
    src = np.arange(256, dtype=np.uint8)
    dst = np.zeros(256, np.uint8)
    run_ptx(BULK, "k", [src, dst], block=(32, 1, 1))
    np.testing.assert_array_equal(dst, src)


# ------------------------------------------------------------------------------- tensor maps
G = np.zeros(4096, np.uint8)


@pytest.mark.parametrize("kw, rule", [
    (dict(global_dim=(16,) * 6, global_strides=(16,) * 5, box_dim=(16,) * 6), "tensorRank 6"),
    (dict(global_strides=(24,)), r"globalStrides\[0\] = 24 must be a multiple of 16"),
    (dict(box_dim=(16, 257)), r"boxDim\[1\] = 257 must be in 1..256"),
    (dict(box_dim=(12, 4)), r"boxDim\[0\] \* elementSize = 12 bytes must be a multiple of 16"),
    (dict(swizzle="32b", box_dim=(48, 4)), "must be <= 32"),
    (dict(element_strides=(1, 9)), r"elementStrides\[1\] = 9 must be in 1..8"),
    (dict(oob_fill="nan_request_zero_fma"), "needs a floating-point tensorDataType"),
    (dict(offset=8), "must be 16-byte aligned"),
    (dict(interleave="32b"), "tensorRank 2 must be >= 3"),
    (dict(data_type="int8"), "tensorDataType 'int8' is not one of"),
    (dict(global_dim=(), global_strides=(), box_dim=()), "tensorRank 0 must be 1..5"),
    (dict(box_dim=("a", 4)), "boxDim must be a sequence of integers"),
])
def test_encode_rules(kw, rule):
    args = dict(data_type="uint8", global_address=G, global_dim=(64, 64), global_strides=(64,),
                box_dim=(16, 4))
    args.update(kw)
    with pytest.raises(EmulationError, match=rule):
        TensorMap(**args)


def test_tensor_map_binds_only_a_128_byte_param():
    ptx = HEAD + ".visible .entry k(.param .u64 p)\n{\n    ret;\n}\n"
    with pytest.raises(EmulationError, match=r"binds to a `.param .align 64 .b8 p\[128\]`"):
        run_ptx(ptx, "k", [TensorMap("uint8", G, (64,), (), (16,))], block=(32, 1, 1))


# ------------------------------------------------------------------------------- clusters
def cluster_kernel(target, copy, expect, body_after=""):
    """Cluster of 2, 32 threads per CTA; thread 0 of each CTA inits `mbar`; after a cluster
    barrier thread 0 of rank 0 runs `copy`, thread 0 of every CTA `expect`d CTAs wait; each CTA
    then dumps `buf` (64 bytes) to out + 64 * rank.  %r7 = cluster rank, %rd3 = the tensor map."""
    return f""".version {"8.6" if target == "sm_100a" else "8.0"}
.target {target}
.address_size 64
.visible .entry k(
    .param .align 64 .b8 tmap[128],
    .param .u64 out
)
.reqntid 32
{{
    .reg .pred %p<8>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<16>;
    .reg .b16 %rs<4>;
    .shared .align 1024 .b8 buf[1024];
    .shared .align 8 .b64 mbar;
    mov.u32 %r1, %tid.x;
    mov.u32 %r7, %cluster_ctarank;
    mov.u64 %rd3, tmap;
    cvta.param.u64 %rd3, %rd3;
    setp.ne.u32 %p1, %r1, 0;
    @!%p1 mbarrier.init.shared::cta.b64 [mbar], 1;
    fence.mbarrier_init.release.cluster;
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    @%p1 bra JOIN;
{expect}
    setp.ne.u32 %p5, %r7, 0;
    @%p5 bra WAIT;
{copy}
WAIT:
{body_after}
JOIN:
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd4, %r7, 64;
    add.u64 %rd1, %rd1, %rd4;
    shl.b32 %r11, %r1, 2;
    setp.ge.u32 %p6, %r11, 64;
    @%p6 bra END;
    mov.u32 %r12, buf;
    add.u32 %r12, %r12, %r11;
    ld.shared.u32 %r13, [%r12];
    cvt.u64.u32 %rd5, %r11;
    add.u64 %rd6, %rd1, %rd5;
    st.global.u32 [%rd6], %r13;
END:
    ret;
}}
"""


SPIN_ON_MBAR = """    mbarrier.try_wait.parity.shared::cta.b64 %p3, [mbar], 0;
    @!%p3 bra WAIT;"""


def test_bulk_copy_into_the_peer_cta(assemble):
    """cp.async.bulk.shared::cluster.shared::cta: rank 0 sends its bytes to rank 1's buf,
    completing rank 1's mbarrier (mapa addresses)."""
    copy = """    mov.u32 %r2, buf;
    st.shared.v4.u32 [%r2], {%r1, %r1, %r1, %r1};
    mov.u32 %r3, 0x04030201;
    st.shared.u32 [%r2], %r3;
    fence.proxy.async.shared::cta;
    mapa.shared::cluster.u32 %r4, %r2, 1;
    mov.u32 %r5, mbar;
    mapa.shared::cluster.u32 %r5, %r5, 1;
    cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r4], [%r2], 64, [%r5];"""
    expect = """    setp.eq.u32 %p4, %r7, 1;
    @%p4 mbarrier.arrive.expect_tx.shared::cta.b64 _, [mbar], 64;"""
    after = "    @!%p4 bra JOIN;\n" + SPIN_ON_MBAR
    ptx = cluster_kernel("sm_90a", copy, expect, after)
    assemble(ptx, "sm_90a")
    out = np.zeros(128, np.uint8)
    tm = TensorMap("uint8", G, (64,), (), (16,))
    run_ptx(ptx, "k", [tm, out], grid=(2, 1, 1), block=(32, 1, 1), cluster=(2, 1, 1))
    np.testing.assert_array_equal(out[64:68], [1, 2, 3, 4])


def test_multicast_cta_group_2_signals_the_even_cta(assemble):
    """.cta_group::2 multicast to both CTAs of a pair with the mbarrier in the even CTA: both
    signals land on it (PTX: the CTA of the pair with the mbarrier's parity); the odd CTA learns
    through the cluster barrier."""
    copy = ("    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
            ".multicast::cluster.cta_group::2 [buf], [%rd3, {0, 0}], [mbar], %rs1;")
    expect = """    mov.u16 %rs1, 3;
    setp.eq.u32 %p4, %r7, 0;
    @%p4 mbarrier.arrive.expect_tx.shared::cta.b64 _, [mbar], 128;"""
    ptx = cluster_kernel("sm_100a", copy, expect, "    @!%p4 bra JOIN;\n" + SPIN_ON_MBAR)
    assemble(ptx, "sm_100a")
    g = np.arange(64, dtype=np.uint8).reshape(4, 16) + 1
    out = np.zeros(128, np.uint8)
    tm = TensorMap("uint8", g, (16, 4), (16,), (16, 4))
    run_ptx(ptx, "k", [tm, out], grid=(2, 1, 1), block=(32, 1, 1), cluster=(2, 1, 1))
    np.testing.assert_array_equal(out.reshape(2, 64), np.stack([g.reshape(-1)] * 2))


def test_tensor_map_arrays_count_against_the_memory_cap(monkeypatch):
    from tile_mlir.sim import launch
    monkeypatch.setattr(launch, "MAX_MEMORY", 1 << 20)
    ptx = HEAD + ".visible .entry k(.param .align 64 .b8 tmap[128])\n{\n    ret;\n}\n"
    big = np.zeros(2 << 20, np.uint8)
    with pytest.raises(EmulationError, match="2097152 bytes of global memory"):
        run_ptx(ptx, "k", [TensorMap("uint8", big, (2 << 20,), (), (16,))], block=(32, 1, 1))
