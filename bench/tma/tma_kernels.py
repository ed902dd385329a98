"""The campaign's PTX, written here from the PTX ISA (cp.async.bulk.tensor, mbarrier, fence.proxy.async,
barrier.cluster) and nothing else: the point of the campaign is to hold tile-sim against silicon,
so these kernels share no code with tile_mlir's lowering.

One module, sm_90a, 128 threads per CTA, holding per rank R = 1..5:

* ``tma_load_Rd``: fill a shared region from ``pat`` with ld.global/st.shared, fence.proxy.async,
  then thread 0 inits an mbarrier, expects ``tx`` bytes (``txmode`` 0: arrive.expect_tx before the
  copy; 1: expect_tx then arrive; 2: the copy first, then arrive.expect_tx) and TMA-loads the box
  at ``c0..`` into ``base + dst_off`` (``base``: ``buf`` rounded up to 1024 bytes); it waits on the
  mbarrier's phase 0 (at most ``SPIN`` try_waits), then the CTA dumps the RAW region with ld.shared;
* ``tma_mcast_Rd``: the same in every CTA of a cluster, the copy issued once by cluster rank
  ``issuer`` with ``.multicast::cluster`` and ``mask``; a CTA waits only if its rank is in ``mask``
  (``pat`` and ``out`` are indexed by %ctaid.x, so a grid may hold several clusters);
* ``tma_store_Rd``: the region is filled from ``pat``, fenced, and TMA-stored at ``c0..``
  (commit_group, wait_group 0); the result is the global tensor.

``out`` per CTA: 16 status bytes (u32 1 = phase completed, 2 = spin limit hit; u32 the shared
address of ``buf``; u32 ``base``; u32 0) then ``nbytes`` dumped bytes (loads only).
"""
from __future__ import annotations

SPIN = 1 << 14  # try_wait attempts before a load reports "phase not completed"
BUF = 33 * 1024  # shared bytes of `buf`: 32 KiB of box images past a 1024-byte rounding
RANKS = (1, 2, 3, 4, 5)


def _params(kind: str, rank: int) -> str:
    ps = [".param .align 64 .b8 tmap[128]", ".param .u64 out", ".param .u64 pat",
          ".param .u32 off", ".param .u32 nbytes"]
    if kind != "store":
        ps += [".param .u32 tx", ".param .u32 txmode"]
    if kind == "mcast":
        ps += [".param .u32 mask", ".param .u32 issuer"]
    ps += [f".param .s32 c{i}" for i in range(rank)]
    return ",\n    ".join(ps)


def _copy_loop(label: str, body: list[str]) -> list[str]:
    """for (w = tid * 4; w < nbytes; w += 512) body (w in %r20)."""
    return [f"    shl.b32 %r20, %r1, 2;",
            f"{label}:",
            f"    setp.ge.u32 %p1, %r20, %r6;",
            f"    @%p1 bra {label}_END;"] + ["    " + b for b in body] + [
            f"    add.u32 %r20, %r20, 512;",
            f"    bra.uni {label};",
            f"{label}_END:"]


def kernel(kind: str, rank: int) -> str:
    coords = ", ".join(f"%r{30 + i}" for i in range(rank))
    mcast = kind == "mcast"
    lines = [f".visible .entry tma_{kind}_{rank}d(",
             f"    {_params(kind, rank)}",
             ")",
             ".reqntid 128",
             "{",
             "    .reg .pred %p<8>;",
             "    .reg .b32 %r<48>;",
             "    .reg .b64 %rd<16>;",
             "    .shared .align 8 .b64 mbar;",
             f"    .shared .align 1024 .b8 buf[{BUF}];",
             "    mov.u32 %r1, %tid.x;",
             "    mov.u32 %r2, buf;",
             "    add.u32 %r3, %r2, 1023;",
             "    and.b32 %r3, %r3, -1024;",
             "    ld.param.u32 %r4, [off];",
             "    add.u32 %r5, %r3, %r4;",
             "    ld.param.u32 %r6, [nbytes];",
             "    ld.param.u64 %rd1, [out];",
             "    ld.param.u64 %rd2, [pat];",
             "    mov.u64 %rd3, tmap;",
             "    cvta.param.u64 %rd3, %rd3;"]
    lines += [f"    ld.param.s32 %r{30 + i}, [c{i}];" for i in range(rank)]
    if mcast:
        lines += ["    mov.u32 %r7, %cluster_ctarank;",
                  "    ld.param.u32 %r8, [mask];",
                  "    ld.param.u32 %r9, [issuer];",
                  "    mov.u32 %r18, %ctaid.x;",
                  "    mul.wide.u32 %rd4, %r18, %r6;",  # this CTA's pattern and dump
                  "    add.u64 %rd2, %rd2, %rd4;",
                  "    add.u32 %r10, %r6, 16;",
                  "    mul.wide.u32 %rd4, %r18, %r10;",
                  "    add.u64 %rd1, %rd1, %rd4;"]
    # the region the box lands in (or is stored from): `off` past base, filled from pat
    region = "%r5" if kind == "store" else "%r3"
    lines += _copy_loop("FILL", ["cvt.u64.u32 %rd5, %r20;",
                                 "add.u64 %rd6, %rd2, %rd5;",
                                 "ld.global.u32 %r21, [%rd6];",
                                 f"add.u32 %r22, {region}, %r20;",
                                 "st.shared.u32 [%r22], %r21;"])
    lines += ["    fence.proxy.async.shared::cta;",
              "    bar.sync 0;",
              "    setp.ne.u32 %p2, %r1, 0;"]
    if kind == "store":
        lines += ["    @%p2 bra STORED;",
                  f"    cp.async.bulk.tensor.{rank}d.global.shared::cta.tile.bulk_group "
                  f"[%rd3, {{{coords}}}], [%r5];",
                  "    cp.async.bulk.commit_group;",
                  "    cp.async.bulk.wait_group 0;",
                  "    mov.u32 %r11, 1;",
                  "    st.global.v4.u32 [%rd1], {%r11, %r2, %r3, %r6};",
                  "STORED:",
                  "    ret;",
                  "}"]
        return "\n".join(lines)
    lines += ["    @%p2 bra INITED;",
              "    mbarrier.init.shared::cta.b64 [mbar], 1;",
              "    fence.mbarrier_init.release.cluster;",
              "INITED:"]
    if mcast:
        lines += ["    barrier.cluster.arrive.release.aligned;",
                  "    barrier.cluster.wait.acquire.aligned;",
                  "    shr.u32 %r12, %r8, %r7;",
                  "    and.b32 %r12, %r12, 1;",
                  "    setp.eq.u32 %p3, %r12, 1;",  # %p3: this CTA receives the box
                  "    setp.eq.u32 %p4, %r7, %r9;"]  # %p4: this CTA issues the copy
        copy = (f"cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile"
                f".mbarrier::complete_tx::bytes.multicast::cluster [%r5], [%rd3, {{{coords}}}], "
                f"[mbar], %rs1;")
    else:
        lines += ["    bar.sync 0;",
                  "    setp.eq.u32 %p3, %r1, %r1;",
                  "    setp.eq.u32 %p4, %r1, %r1;"]
        copy = (f"cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile"
                f".mbarrier::complete_tx::bytes [%r5], [%rd3, {{{coords}}}], [mbar];")
    lines += ["    mov.u32 %r13, 1;",
              "    @%p2 bra WAITED;",
              "    ld.param.u32 %r14, [tx];",
              "    ld.param.u32 %r15, [txmode];",
              "    setp.eq.u32 %p5, %r15, 2;",
              "    @%p5 bra COPY;",
              "    setp.eq.u32 %p6, %r15, 1;",
              "    @!%p3 bra COPY;",
              "    @%p6 bra EXPECT;",
              "    mbarrier.arrive.expect_tx.shared::cta.b64 _, [mbar], %r14;",
              "    bra.uni COPY;",
              "EXPECT:",
              "    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [mbar], %r14;",
              "    mbarrier.arrive.shared::cta.b64 _, [mbar];",
              "COPY:",
              "    @!%p4 bra ISSUED;"]
    if mcast:
        lines += ["    {",
                  "    .reg .b16 %rs1;",
                  "    cvt.u16.u32 %rs1, %r8;",
                  "    " + copy,
                  "    }"]
    else:
        lines += ["    " + copy]
    lines += ["ISSUED:",
              "    @!%p5 bra WAIT;",
              "    @%p3 mbarrier.arrive.expect_tx.shared::cta.b64 _, [mbar], %r14;",
              "WAIT:",
              "    @!%p3 bra WAITED;",
              "    mov.u32 %r16, 0;",
              "SPIN:",
              "    mbarrier.try_wait.parity.shared::cta.b64 %p7, [mbar], 0;",
              "    @%p7 bra WAITED;",
              "    add.u32 %r16, %r16, 1;",
              f"    setp.lt.u32 %p1, %r16, {SPIN};",
              "    @%p1 bra SPIN;",
              "    mov.u32 %r13, 2;",
              "WAITED:",
              "    bar.sync 0;"]
    lines += _copy_loop("DUMP", [f"add.u32 %r22, %r3, %r20;",
                                 "ld.shared.u32 %r21, [%r22];",
                                 "cvt.u64.u32 %rd5, %r20;",
                                 "add.u64 %rd6, %rd1, %rd5;",
                                 "st.global.u32 [%rd6+16], %r21;"])
    lines += ["    @%p2 bra DUMPED;",
              "    mov.u32 %r17, 0;",
              "    st.global.v4.u32 [%rd1], {%r13, %r2, %r3, %r17};",
              "DUMPED:"]
    if mcast:  # no CTA leaves while a peer's copy may still write into it
        lines += ["    barrier.cluster.arrive.release.aligned;",
                  "    barrier.cluster.wait.acquire.aligned;"]
    lines += ["    ret;", "}"]
    return "\n".join(lines)


def module() -> str:
    head = [".version 8.0", ".target sm_90a", ".address_size 64", ""]
    return "\n".join(head + [kernel(k, r) + "\n" for r in RANKS
                             for k in ("load", "mcast", "store")])
