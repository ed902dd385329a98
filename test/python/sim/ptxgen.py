"""Hand-written PTX kernels for the tile-sim tests (generated as text, then assembled by ptxas)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

HEADER = """//
// hand-written test kernel for tile-sim
//
.version 8.8
.target sm_100a
.address_size 64
"""

PTXAS_CANDIDATES = [
    os.path.join(os.path.dirname(__file__), "../../../.venv/lib/python3.11/site-packages/nvidia/"
                 "cu13/bin/ptxas"),
    "/usr/local/bin/ptxas",
]


def find_ptxas():
    for c in PTXAS_CANDIDATES:
        if os.path.exists(c) and os.access(c, os.X_OK):
            return c
    return shutil.which("ptxas")


def ptxas_check(ptx: str, arch: str = "sm_100a"):
    """Assemble with ptxas; returns None if ok, or raises AssertionError with ptxas's message.
    Returns 'skip' if ptxas is missing."""
    exe = find_ptxas()
    if exe is None:
        return "skip"
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        p = subprocess.run([exe, f"-arch={arch}", src, "-o", os.path.join(d, "k.cubin")],
                           capture_output=True, text=True)
        if p.returncode:
            raise AssertionError(f"ptxas rejected the kernel:\n{p.stderr}\n{_numbered(ptx)}")
    return None


def _numbered(ptx):
    return "\n".join(f"{i + 1:4d} {l}" for i, l in enumerate(ptx.split("\n")))


def cp_kernel(cps, *, ncols=32, smem_bytes=4096, cta_group=1, fence=True, wait=True,
              after_fence=True, read_cols=None, lane_abs=True, commit_mask=None, dealloc=True,
              name="k", ld_shape="32x32b"):
    """Kernel: fill `buf` (1024-aligned shared) from param 0 by all 128 threads, fence, warp 0
    allocates `ncols` columns, thread 0 inits an mbarrier, issues `cps` (list of (qualifiers,
    column offset, lane offset, descriptor)) then commits; all threads wait, fence, then each warp
    reads its lane quarter with tcgen05.ld.32x32b.x<read_cols> and stores it to param 1 as
    out[lane, col] (u32, row pitch read_cols)."""
    read_cols = read_cols or ncols
    nch = smem_bytes // 16
    cg = f"cta_group::{cta_group}"
    L = []
    a = L.append
    a(HEADER)
    a(f".visible .entry {name}(\n\t.param .u64 .ptr .global .align 1 {name}_param_0,\n"
      f"\t.param .u64 .ptr .global .align 1 {name}_param_1\n)\n{{")
    a("\t.reg .pred %p<8>;\n\t.reg .b32 %r<300>;\n\t.reg .b64 %rd<32>;")
    a("\t.shared .align 8 .b8 tslot[16];")
    a(f"\t.shared .align 1024 .b8 buf[{smem_bytes}];")
    a(f"\tld.param.u64 %rd1, [{name}_param_0];")
    a(f"\tld.param.u64 %rd2, [{name}_param_1];")
    a("\tcvta.to.global.u64 %rd1, %rd1;")
    a("\tcvta.to.global.u64 %rd2, %rd2;")
    a("\tmov.u32 %r1, %tid.x;")
    a("\tmov.u32 %r2, %r1;")
    a("\tmov.u32 %r30, %cluster_ctarank;")
    a("\tmov.u32 %r31, %ctaid.x;")
    a(f"\tmul.wide.u32 %rd10, %r31, {smem_bytes};")
    a("\tadd.s64 %rd1, %rd1, %rd10;")
    a(f"\tmul.wide.u32 %rd11, %r31, {128 * (read_cols or ncols) * 4};")
    a("\tadd.s64 %rd2, %rd2, %rd11;")
    a("\tmov.u32 %r8, buf;")
    a("$L__fill:")
    a(f"\tsetp.ge.u32 %p1, %r2, {nch};")
    a("\t@%p1 bra $L__filled;")
    a("\tmul.wide.u32 %rd3, %r2, 16;")
    a("\tadd.s64 %rd4, %rd1, %rd3;")
    a("\tld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd4];")
    a("\tshl.b32 %r9, %r2, 4;")
    a("\tadd.s32 %r9, %r9, %r8;")
    a("\tst.shared.v4.u32 [%r9], {%r4, %r5, %r6, %r7};")
    a("\tadd.s32 %r2, %r2, 128;")
    a("\tbra.uni $L__fill;")
    a("$L__filled:")
    if fence:
        a("\tfence.proxy.async.shared::cta;")
    a("\tshr.u32 %r10, %r1, 5;")
    a("\tsetp.ne.u32 %p2, %r10, 0;")
    a("\t@%p2 bra $L__afteralloc;")
    a(f"\ttcgen05.alloc.{cg}.sync.aligned.shared::cta.b32 [tslot], {ncols};")
    a(f"\ttcgen05.relinquish_alloc_permit.{cg}.sync.aligned;")
    a("$L__afteralloc:")
    a("\tsetp.ne.u32 %p3, %r1, 0;")
    a("\t@%p3 bra $L__afterinit;")
    a("\tmbarrier.init.shared::cta.b64 [tslot+8], 1;")
    if cta_group == 2:
        a("\tfence.mbarrier_init.release.cluster;")
    a("$L__afterinit:")
    a("\ttcgen05.fence::before_thread_sync;")
    a("\tbar.sync 0;")
    if cta_group == 2:
        a("\tbarrier.cluster.arrive.release.aligned;")
        a("\tbarrier.cluster.wait.acquire.aligned;")
        a("\tsetp.ne.u32 %p5, %r30, 0;")
        a("\tor.pred %p3, %p3, %p5;")
    a("\ttcgen05.fence::after_thread_sync;")
    a("\tld.shared.b32 %r11, [tslot];")
    a("\t@%p3 bra $L__aftercp;")
    for k, (quals, col, lane, desc) in enumerate(cps):
        a(f"\tadd.s32 %r12, %r11, {(lane << 16) + col};")
        a(f"\tmov.b64 %rd5, {desc};")
        a(f"\ttcgen05.cp.{cg}.{quals} [%r12], %rd5;")
    if commit_mask is None:
        a(f"\ttcgen05.commit.{cg}.mbarrier::arrive::one.shared::cluster.b64 [tslot+8];")
    else:
        a(f"\tmov.b16 %rs1, {commit_mask};")
        a(f"\ttcgen05.commit.{cg}.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 "
          f"[tslot+8], %rs1;")
    a("$L__aftercp:")
    if wait:
        a("\tmov.u32 %r13, 0;")
        a("$L__wait:")
        a("\tmbarrier.try_wait.parity.shared::cta.b64 %p4, [tslot+8], %r13;")
        a("\t@!%p4 bra $L__wait;")
    if after_fence:
        a("\ttcgen05.fence::after_thread_sync;")
    if lane_abs:
        a("\tand.b32 %r14, %r1, 96;")
        a("\tshl.b32 %r14, %r14, 16;")
        a("\tadd.s32 %r15, %r11, %r14;")
    else:
        a("\tmov.u32 %r15, %r11;")
    a(f"\tmul.wide.u32 %rd6, %r1, {read_cols * 4};")
    a("\tadd.s64 %rd7, %rd2, %rd6;")
    step = min(read_cols, 128)
    for c0 in range(0, read_cols, step):
        regs = ", ".join(f"%r{100 + i}" for i in range(step))
        a(f"\tadd.s32 %r16, %r15, {c0};")
        a(f"\ttcgen05.ld.sync.aligned.{ld_shape}.x{step}.b32 {{{regs}}}, [%r16];")
        a("\ttcgen05.wait::ld.sync.aligned;")
        for i in range(0, step, 4):
            a(f"\tst.global.v4.u32 [%rd7+{4 * (c0 + i)}], {{%r{100 + i}, %r{101 + i}, "
              f"%r{102 + i}, %r{103 + i}}};")
    a("\ttcgen05.fence::before_thread_sync;")
    a("\tbar.sync 0;")
    if cta_group == 2:
        a("\tbarrier.cluster.arrive.release.aligned;")
        a("\tbarrier.cluster.wait.acquire.aligned;")
    if dealloc:
        a("\t@%p2 bra $L__end;")
        a("\ttcgen05.fence::after_thread_sync;")
        a(f"\ttcgen05.dealloc.{cg}.sync.aligned.b32 %r11, {ncols};")
    a("$L__end:")
    a("\tret;")
    a("}")
    text = "\n".join(L) + "\n"
    if commit_mask is not None:
        text = text.replace(".reg .b64 %rd<32>;", ".reg .b64 %rd<32>;\n\t.reg .b16 %rs<4>;")
    return text
