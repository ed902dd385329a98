"""cp.async on tile-sim: hand-written PTX (assembled by ptxas -arch=sm_90a) and the compiler's own
global -> shared -> global round trips (the cp.async variant of copy_async) for every scope, dtype and
swizzle. Semantics per PTX ISA cp.async / commit_group / wait_group / mbarrier.arrive; model in
tile_mlir/sim/handlers/cp_async.py."""

import os
import re
import sys

import numpy as np
import pytest

import tiers
from tile_mlir.sim import EmulationError, run_ptx

HEADER90 = """//
// hand-written cp.async test kernel for tile-sim
//
.version 8.0
.target sm_90a
.address_size 64
"""


def kernel(body, *, smem=4096, name="k", extra_shared=""):
    """Kernel with params (src, dst) as global pointers %rd1 / %rd2, %r1 = tid.x, %r2 = `buf` (shared
    address of a 1024-aligned `smem`-byte array). `body` is PTX text."""
    return HEADER90 + f""".visible .entry {name}(
	.param .u64 .ptr .global .align 16 {name}_param_0,
	.param .u64 .ptr .global .align 16 {name}_param_1
)
{{
	.reg .pred %p<8>;
	.reg .b32 %r<64>;
	.reg .b64 %rd<32>;
	.shared .align 1024 .b8 buf[{smem}];
	.shared .align 8 .b64 mbar;
{extra_shared}	ld.param.u64 %rd1, [{name}_param_0];
	ld.param.u64 %rd2, [{name}_param_1];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, buf;
{body}
	ret;
}}
"""


# each thread t copies 16 bytes: global src[16 t] -> shared buf[16 t]; then (after wait and barrier)
# reads the chunk of thread (t + 1) % 128 and writes it to dst[16 t].
ISSUE16 = """	mul.wide.u32 %rd3, %r1, 16;
	add.s64 %rd4, %rd1, %rd3;
	shl.b32 %r3, %r1, 4;
	add.s32 %r4, %r2, %r3;
	cp.async.cg.shared.global [%r4], [%rd4], 16;
"""
READ_NEIGHBOUR = """	add.s32 %r5, %r1, 1;
	and.b32 %r5, %r5, 127;
	shl.b32 %r5, %r5, 4;
	add.s32 %r5, %r2, %r5;
	ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r5];
	mul.wide.u32 %rd5, %r1, 16;
	add.s64 %rd6, %rd2, %rd5;
	st.global.v4.u32 [%rd6], {%r10, %r11, %r12, %r13};
"""


def run(ptx, nbytes=2048, strict=True, block=128):
    src = np.random.default_rng(7).integers(0, 256, nbytes, dtype=np.uint8)
    dst = np.zeros(nbytes, np.uint8)
    res = run_ptx(ptx, "k", [src, dst], block=(block, 1, 1), strict=strict)
    return src, dst, res


def neighbour(src):
    return np.roll(src.reshape(128, 16), -1, axis=0).reshape(-1)


def test_cg16_commit_wait_barrier(assemble):
    ptx = kernel(ISSUE16 + "\tcp.async.commit_group;\n\tcp.async.wait_group 0;\n\tbar.sync 0;\n"
                 + READ_NEIGHBOUR)
    assemble(ptx, "sm_90a")
    src, dst, res = run(ptx)
    np.testing.assert_array_equal(dst, neighbour(src))
    assert res.warnings == []


def test_wait_all(assemble):
    ptx = kernel(ISSUE16 + "\tcp.async.wait_all;\n\tbar.sync 0;\n" + READ_NEIGHBOUR)
    assemble(ptx, "sm_90a")
    src, dst, _ = run(ptx)
    np.testing.assert_array_equal(dst, neighbour(src))


@pytest.mark.parametrize("size", [4, 8, 16])
def test_ca_sizes_and_zero_fill(size, assemble):
    # thread t: cp-size `size` with src-size (t % (size + 1)) bytes: the rest is zero-filled
    n = size
    body = f"""	mul.wide.u32 %rd3, %r1, {n};
	add.s64 %rd4, %rd1, %rd3;
	mul.lo.u32 %r3, %r1, {n};
	add.s32 %r4, %r2, %r3;
	rem.u32 %r6, %r1, {n + 1};
	cp.async.ca.shared.global [%r4], [%rd4], {n}, %r6;
	cp.async.commit_group;
	cp.async.wait_group 0;
	bar.sync 0;
	ld.shared.u32 %r10, [%r4];
	add.s64 %rd6, %rd2, %rd3;
	st.global.u32 [%rd6], %r10;
"""
    if n >= 8:
        body += """	ld.shared.u32 %r11, [%r4+4];
	st.global.u32 [%rd6+4], %r11;
"""
    if n == 16:
        body += """	ld.shared.v2.u32 {%r12, %r13}, [%r4+8];
	st.global.v2.u32 [%rd6+8], {%r12, %r13};
"""
    ptx = kernel(body)
    assemble(ptx, "sm_90a")
    src, dst, _ = run(ptx)
    exp = src[:128 * n].reshape(128, n).copy()
    for t in range(128):
        exp[t, t % (n + 1):] = 0
    np.testing.assert_array_equal(dst[:128 * n].reshape(128, n), exp)


def test_wait_group_n_leaves_newest_groups_pending(assemble):
    # group A: bytes [0, 2048); group B: bytes [2048, 4096). wait_group 1 completes A only: reading A is
    # fine, reading B (by its own issuer, before any wait covering it) is a race.
    body = ISSUE16 + """	cp.async.commit_group;
	add.s64 %rd7, %rd4, 2048;
	add.s32 %r7, %r4, 2048;
	cp.async.cg.shared.global [%r7], [%rd7], 16;
	cp.async.commit_group;
	cp.async.wait_group 1;
	bar.sync 0;
""" + READ_NEIGHBOUR + """	ld.shared.u32 %r20, [%r7];
	cp.async.wait_group 0;
"""
    ptx = kernel(body)
    assemble(ptx, "sm_90a")
    ln = next(i + 1 for i, l in enumerate(ptx.split("\n")) if "ld.shared.u32 %r20" in l)
    with pytest.raises(EmulationError, match=r"races with the cp\.async issued at line \d+.*not been "
                                             r"waited for") as ei:
        run(ptx, nbytes=4096)
    assert ei.value.line == ln
    # without the early read of group B, the kernel is clean
    ptx_ok = ptx.replace("\tld.shared.u32 %r20, [%r7];\n", "")
    src, dst, res = run(ptx_ok, nbytes=4096)
    np.testing.assert_array_equal(dst[:2048], neighbour(src[:2048]))
    assert res.warnings == []


def test_read_before_wait_is_a_race(assemble):
    ptx = kernel(ISSUE16 + "\tbar.sync 0;\n" + READ_NEIGHBOUR + "\tcp.async.wait_all;\n")
    assemble(ptx, "sm_90a")
    with pytest.raises(EmulationError, match=r"load at shared 0x\w+ .*races with the cp\.async"):
        run(ptx)
    with pytest.raises(EmulationError, match=r"not been waited for.*a race: an error in lenient"):
        run(ptx, strict=False)  # a race with a real overlap stops the run in lenient mode too


def test_read_after_wait_without_barrier_is_a_race(assemble):
    ptx = kernel(ISSUE16 + "\tcp.async.wait_all;\n" + READ_NEIGHBOUR)
    assemble(ptx, "sm_90a")
    with pytest.raises(EmulationError, match=r"has not synchronised with that wait"):
        run(ptx)
    with pytest.raises(EmulationError, match=r"not synchronised.*a race: an error in lenient"):
        run(ptx, strict=False)


def test_own_chunk_after_own_wait_needs_no_barrier(assemble):
    body = ISSUE16 + """	cp.async.wait_all;
	ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r4];
	add.s64 %rd6, %rd2, %rd3;
	st.global.v4.u32 [%rd6], {%r10, %r11, %r12, %r13};
"""
    ptx = kernel(body)
    assemble(ptx, "sm_90a")
    src, dst, res = run(ptx)
    np.testing.assert_array_equal(dst, src)
    assert res.warnings == []


def test_store_to_pending_destination_is_a_race(assemble):
    body = ISSUE16 + """	bar.sync 0;
	add.s32 %r5, %r1, 1;
	and.b32 %r5, %r5, 127;
	shl.b32 %r5, %r5, 4;
	add.s32 %r5, %r2, %r5;
	st.shared.u32 [%r5], %r1;
	cp.async.wait_all;
"""
    ptx = kernel(body)
    assemble(ptx, "sm_90a")
    with pytest.raises(EmulationError, match=r"store at shared .*races with the cp\.async"):
        run(ptx)


def test_exit_with_pending_copies(assemble):
    ptx = kernel(ISSUE16 + "\tcp.async.commit_group;\n")
    assemble(ptx, "sm_90a")
    with pytest.raises(EmulationError, match=r"exits with 1 cp\.async copy .*not waited for"):
        run(ptx)
    ptx2 = kernel(ISSUE16)  # never committed either
    with pytest.raises(EmulationError, match=r"exits with 1 cp\.async copy"):
        run(ptx2)


def test_misaligned_addresses(assemble):
    ptx = kernel(ISSUE16.replace("add.s32 %r4, %r2, %r3;", "add.s32 %r4, %r2, %r3;\n\tadd.s32 %r4, %r4, 8;")
                 + "\tcp.async.wait_all;\n", smem=4096)
    assemble(ptx, "sm_90a")
    with pytest.raises(EmulationError, match=r"destination shared 0x\w+ is not aligned to its cp-size 16"):
        run(ptx)
    ptx = kernel(ISSUE16.replace("add.s64 %rd4, %rd1, %rd3;", "add.s64 %rd4, %rd1, %rd3;\n\tadd.s64 %rd4, %rd4, 4;")
                 + "\tcp.async.wait_all;\n")
    assemble(ptx, "sm_90a")
    with pytest.raises(EmulationError, match=r"source global 0x\w+ is not aligned to its cp-size 16"):
        run(ptx)


def test_out_of_bounds(assemble):
    ptx = kernel(ISSUE16 + "\tcp.async.wait_all;\n", smem=1024)
    assemble(ptx, "sm_90a")
    with pytest.raises(EmulationError, match=r"out-of-bounds cp\.async destination"):
        run(ptx)
    with pytest.raises(EmulationError, match=r"out-of-bounds global access"):
        run(ptx.replace("buf[1024]", "buf[4096]"), nbytes=1024)


def test_cg_requires_16_bytes():
    ptx = kernel(ISSUE16.replace("cp.async.cg.shared.global [%r4], [%rd4], 16;",
                                 "cp.async.cg.shared.global [%r4], [%rd4], 8;") + "\tcp.async.wait_all;\n")
    with pytest.raises(EmulationError, match=r"cp\.async\.cg supports only cp-size 16"):
        run(ptx)


def test_overlapping_pending_copies_of_one_thread_are_unordered(assemble):
    # the second copy writes the same 16 shared bytes from the next 16 global bytes: which one
    # lands last is unordered, so the kernel relies on an order PTX does not give
    body = ISSUE16 + """	add.s64 %rd7, %rd4, 16;
	cp.async.cg.shared.global [%r4], [%rd7], 16;
	cp.async.wait_all;
"""
    ptx = kernel(body)
    assemble(ptx, "sm_90a")
    with pytest.raises(EmulationError, match=r"cp\.async destination of another copy"):
        run(ptx)
    with pytest.raises(EmulationError, match=r"destination of another copy.*a race: an error"):
        run(ptx, strict=False)


# every thread copies the same 16 global bytes src[0:16] into the same shared bytes buf[0:16] (a
# CuTe copy of a broadcast element), then, after the wait and a barrier, stores them to dst[16 t]
BROADCAST16 = """	cp.async.cg.shared.global [%r2], [%rd1], 16;
	cp.async.wait_all;
	bar.sync 0;
	ld.shared.v4.u32 {%r10, %r11, %r12, %r13}, [%r2];
	mul.wide.u32 %rd5, %r1, 16;
	add.s64 %rd6, %rd2, %rd5;
	st.global.v4.u32 [%rd6], {%r10, %r11, %r12, %r13};
"""


def test_unordered_copies_of_the_same_bytes_are_no_race(assemble):
    """PTX memory model (Conflict and Data-races; Limitations on Mixed-size Data-races): the 128
    copies are unordered writes of the same size over the same bytes, a uniform-size race under
    which the axioms still hold, and all carry src[0:16]: every order leaves those bytes, so
    nothing is reported and every thread reads them."""
    ptx = kernel(BROADCAST16)
    assemble(ptx, "sm_90a")
    src, dst, res = run(ptx, strict=True)
    np.testing.assert_array_equal(dst, np.tile(src[:16], 128))
    assert res.warnings == [] and res.findings == []
    # odd threads copy the next 16 bytes instead: the bytes left depend on the order
    odd = BROADCAST16.replace("\tcp.async.cg.shared.global [%r2], [%rd1], 16;\n", """	and.b32 %r20, %r1, 1;
	mul.wide.u32 %rd8, %r20, 16;
	add.s64 %rd9, %rd1, %rd8;
	cp.async.cg.shared.global [%r2], [%rd9], 16;
""")
    ptx = kernel(odd)
    assemble(ptx, "sm_90a")
    with pytest.raises(EmulationError, match=r"cp\.async destination of another copy.*races"):
        run(ptx, strict=False)


def test_mbarrier_arrive_noinc(assemble):
    # mbarrier expects 128 arrivals; each thread's cp.async.mbarrier.arrive.noinc is one of them. All
    # threads wait on the phase, then read a neighbour's chunk: no cp.async.wait, no bar.sync needed.
    body = """	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra $L__init_done;
	mbarrier.init.shared::cta.b64 [mbar], 128;
$L__init_done:
	bar.sync 0;
""" + ISSUE16 + """	cp.async.mbarrier.arrive.noinc.shared::cta.b64 [mbar];
	mov.u32 %r30, 0;
$L__wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [mbar], %r30;
	@!%p2 bra $L__wait;
""" + READ_NEIGHBOUR
    ptx = kernel(body)
    assemble(ptx, "sm_90a")
    src, dst, res = run(ptx)
    np.testing.assert_array_equal(dst, neighbour(src))
    assert res.warnings == []


def test_mbarrier_arrive_with_increment_plus_explicit_arrive(assemble):
    # without .noinc the async arrive does not count: each thread also arrives itself (count 128)
    body = """	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra $L__init_done;
	mbarrier.init.shared::cta.b64 [mbar], 128;
$L__init_done:
	bar.sync 0;
""" + ISSUE16 + """	cp.async.mbarrier.arrive.shared::cta.b64 [mbar];
	mbarrier.arrive.shared::cta.b64 %rd20, [mbar];
	mov.u32 %r30, 0;
$L__wait:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [mbar], %r30;
	@!%p2 bra $L__wait;
""" + READ_NEIGHBOUR
    ptx = kernel(body)
    assemble(ptx, "sm_90a")
    src, dst, _ = run(ptx)
    np.testing.assert_array_equal(dst, neighbour(src))


# ------------------------------------------------------------------------------------------------
# The compiler's cp.async variant: global -> shared (copy_async, cp.async by `scope`) -> global
# ------------------------------------------------------------------------------------------------
sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir, "bench"))

NP = {"f32": np.float32, "bf16": np.uint16, "ui8": np.uint8}


# every scope, element type and swizzle in the fast tier (the first case of each); the other
# combinations in the slow tier (tiers.cover)
@pytest.mark.parametrize("scope, elem, swizzle", tiers.cover(
    [pytest.param(scope, elem, swizzle) for scope in ("cta", "warpgroup", "warp", "thread")
     for elem in ("f32", "bf16", "ui8") for swizzle in (None, "32B", "64B", "128B")],
    lambda scope, elem, swizzle: scope, lambda scope, elem, swizzle: elem,
    lambda scope, elem, swizzle: swizzle))
def test_pipeline_global_shared_global(scope, elem, swizzle, assemble):
    from kernels import global_shared_global_kernel
    from tile_mlir.driver.compiler import compile

    rows, cols = (32, 64) if scope == "thread" else (64, 64)  # thread scope: keep the loop short
    art = compile(global_shared_global_kernel(f"gsg_{scope}_{elem}", scope, rows=rows, cols=cols, elem=elem,
                                              swizzle=swizzle), arch="sm_90a")
    assert re.search(r"cp\.async\.(ca|cg)\.shared\.global", art.ptx)
    assemble(art.ptx, "sm_90a")
    rng = np.random.default_rng(hash((scope, elem, swizzle)) & 0xFFFF)
    a = rng.integers(0, 1 << 16, (rows, cols)).astype(np.uint32).view(np.uint8)[:, :cols * np.dtype(NP[elem]).itemsize]
    a = np.ascontiguousarray(a).view(NP[elem]).reshape(rows, cols)
    out = np.zeros_like(a)
    res = run_ptx(art.ptx, art.kernel_name, [a, out], block=art.block, cluster=art.cluster,
                  dynamic_smem=art.dynamic_smem if hasattr(art, "dynamic_smem") else 0)
    np.testing.assert_array_equal(out.view(np.uint8), a.view(np.uint8))
    assert res.warnings == []
    # the shared tile really is laid out by the swizzle (not a plain row-major copy) when swizzled
    if swizzle is not None:
        assert not np.array_equal(res.shared[0][:a.nbytes], a.view(np.uint8).reshape(-1))
