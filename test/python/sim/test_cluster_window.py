"""The .shared::cta window of each CTA lies inside the .shared::cluster window (PTX ISA, state
spaces; mapa, getctarank): a CTA's own shared addresses name it as .shared::cluster addresses, and
clearing bit 24 of the odd CTA's address names the even CTA's variable (CUTLASS's 2-CTA kernels,
Table A A41)."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx

PTX = """.version 8.6
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out)
.reqntid 32
.reqnctapercluster 2, 1, 1
{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    .shared .align 8 .b32 word[2];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    mov.u32 %r2, %cluster_ctarank;
    mov.u32 %r3, word;
    getctarank.shared::cluster.u32 %r4, %r3;
    mov.u64 %rd2, word;
    cvta.shared.u64 %rd2, %rd2;
    cvta.to.shared::cluster.u64 %rd3, %rd2;
    cvt.u32.u64 %r5, %rd3;
    mapa.shared::cluster.u32 %r6, %r3, 0;
    and.b32 %r7, %r3, -16777217;
    add.u32 %r8, %r2, 100;
    setp.ne.u32 %p2, %r2, 0;
    @%p2 st.shared::cluster.u32 [%r7+4], %r8;
    st.shared.u32 [%r3], %r2;
    barrier.cluster.arrive.aligned;
    barrier.cluster.wait.aligned;
    ld.shared.u32 %r9, [word+4];
    mul.wide.u32 %rd4, %r2, 24;
    add.u64 %rd5, %rd1, %rd4;
    st.global.v2.u32 [%rd5], {%r3, %r4};
    st.global.v2.u32 [%rd5+8], {%r5, %r6};
    st.global.v2.u32 [%rd5+16], {%r9, %r7};
DONE:
    ret;
}
"""


def test_own_shared_addresses_are_cluster_addresses(assemble):
    assemble(PTX)
    out = np.zeros((2, 6), np.uint32)
    run_ptx(PTX, "k", [out], grid=(2, 1, 1), block=(32, 1, 1), cluster=(2, 1, 1), strict=True)
    base = [int(out[r, 0]) for r in range(2)]
    assert base[1] - base[0] == 1 << 24  # the odd CTA's window: its rank in bit 24
    for r in range(2):
        assert out[r, 1] == r  # getctarank of its own .shared::cta address
        assert out[r, 2] == base[r]  # cvta.to.shared::cluster of its generic address
        assert out[r, 3] == base[0]  # mapa to rank 0
        assert out[r, 5] == base[0]  # bit 24 cleared: the even CTA's variable
    assert out[0, 4] == 101 and out[1, 4] == 0  # the odd CTA wrote the even CTA's word[1]


def test_a_peer_address_in_a_shared_cta_access_is_refused(assemble):
    ptx = PTX.replace("st.shared.u32 [%r3], %r2;", "mapa.shared::cluster.u32 %r10, %r3, 1;\n"
                      "    st.shared.u32 [%r10], %r2;")
    assemble(ptx)
    out = np.zeros((2, 6), np.uint32)
    with pytest.raises(EmulationError, match=r"in CTA rank 1's window, not the issuing CTA's"):
        run_ptx(ptx, "k", [out], grid=(2, 1, 1), block=(32, 1, 1), cluster=(2, 1, 1))
