"""tcgen05.alloc / dealloc with .cta_group::2: "one warp from each of the peer CTAs must
collectively perform" them (PTX ISA, tcgen05.alloc): the warp that comes first waits for its
peer's, and both CTAs' columns are allocated when either goes on -- the order 2-CTA kernels rely on
when the leader issues its first MMA into the peer's tensor memory (CuTe DSL's fp16 tutorial GEMMs,
whose leader exploration once found issuing into a peer that had not allocated yet)."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx

PTX = """.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 pout)
{
\t.reg .pred %p<4>;
\t.reg .b32 %r<16>;
\t.reg .b64 %rd<4>;
\t.shared .align 4 .b32 tslot;
\tld.param.u64 %rd1, [pout];
\tcvta.to.global.u64 %rd1, %rd1;
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r3, %cluster_ctarank;
\tsetp.ne.u32 %p1, %r1, 0;
\tmul.wide.u32 %rd2, %r3, 4;
\tadd.u64 %rd2, %rd1, %rd2;
{delay}
\ttcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [tslot], 64;
\tld.shared.b32 %r4, [tslot];
\t@!%p1 st.global.u32 [%rd2], 7;
\ttcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
\ttcgen05.dealloc.cta_group::2.sync.aligned.b32 %r4, 64;
DONE:
\tret;
}
"""
# CTA 1 first runs a loop (its alloc comes late), or skips the allocation
DELAY = ("\tsetp.ne.u32 %p2, %r3, 1;\n\t@%p2 bra GO;\n\tmov.u32 %r5, 0;\nSPIN:\n"
         "\tadd.u32 %r5, %r5, 1;\n\tsetp.lt.u32 %p3, %r5, 200;\n\t@%p3 bra SPIN;\nGO:\n")
SKIP = "\tsetp.eq.u32 %p2, %r3, 1;\n\t@%p2 bra DONE;\n"


def _run(ptx, **kw):
    out = np.zeros(2, np.uint32)
    run_ptx(ptx, "k", [out], grid=(2, 1, 1), block=(32, 1, 1), cluster=(2, 1, 1), **kw)
    return out


@pytest.mark.parametrize("delay", ["", DELAY])
def test_a_pair_allocates_and_frees_together(delay, assemble):
    ptx = PTX.replace("{delay}", delay)
    assemble(ptx)
    assert (_run(ptx) == 7).all()
    out = np.zeros(2, np.uint32)
    r = run_ptx(ptx, "k", [out], grid=(2, 1, 1), block=(32, 1, 1), cluster=(2, 1, 1),
                explore=20, seed=0, workers=1, progress=False)
    assert not r.found, r.failure


def test_an_alloc_whose_peer_never_comes_is_a_deadlock(assemble):
    ptx = PTX.replace("{delay}", SKIP)
    assemble(ptx)
    with pytest.raises(EmulationError, match="blocked in tcgen05.alloc"):
        _run(ptx)
