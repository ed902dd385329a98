"""Tensor maps updated on the device (grouped GEMMs, Triton's device-side descriptors): a kernel
copies its parameter's map to shared memory, points it at another tensor with tensormap.replace,
publishes it to global memory with tensormap.cp_fenceproxy, and a TMA load through the global copy
reads the new tensor's box; a map built field by field from zeroed bytes works the same; values
outside the ISA's are errors where the map is used."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, TensorMap, run_ptx
from tile_mlir.sim.tensor_map_bytes import ELEMTYPES, decode, encode

HEAD = ".version 8.8\n.target sm_100a\n.address_size 64\n"


def kernel(edit, build_from_zero=False):
    """Thread 0 makes the map in `tm_s` (copied from the parameter, or zeroed), runs `edit` on it,
    warp 0 copies it to `ws` with cp_fenceproxy; then a TMA load of box {0, 4} through `ws` into
    `buf`, and 64 threads store the 64 bytes to `out`."""
    copy = "".join(f"\tld.param.v2.b64 {{%rd10, %rd11}}, [tmap+{16 * i}];\n"
                   f"\tst.shared.v2.b64 [tm_s+{16 * i}], {{%rd10, %rd11}};\n" for i in range(8))
    zero = "".join(f"\tst.shared.v2.b64 [tm_s+{16 * i}], {{%rd12, %rd12}};\n" for i in range(8))
    return HEAD + f"""
.shared .align 128 .b8 tm_s[128];
.shared .align 128 .b8 buf[64];
.shared .align 8 .b64 bar;
.visible .entry k(.param .align 64 .b8 tmap[128], .param .u64 pb, .param .u64 pws, .param .u64 pout)
{{
	.reg .pred %p<4>;
	.reg .b16 %h<2>;
	.reg .b32 %r<16>;
	.reg .b64 %rd<16>;
	mov.u32 %r1, %tid.x;
	ld.param.u64 %rd1, [pb];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u64 %rd2, [pws];
	cvta.to.global.u64 %rd2, %rd2;
	ld.param.u64 %rd3, [pout];
	cvta.to.global.u64 %rd3, %rd3;
	mov.b64 %rd12, 0;
	setp.eq.u32 %p1, %r1, 0;
	setp.lt.u32 %p2, %r1, 32;
	@!%p1 bra MADE;
{zero if build_from_zero else copy}{edit}	mbarrier.init.shared::cta.b64 [bar], 1;
MADE:
	bar.sync 0;
	@!%p2 bra PUBLISHED;
	tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd2], [tm_s], 128;
PUBLISHED:
	fence.proxy.tensormap::generic.acquire.gpu [%rd2], 128;
	bar.sync 0;
	@!%p1 bra WAIT;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 64;
	cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [buf], [%rd2, {{0, 4}}], [bar];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;
	@!%p3 bra WAIT;
	mov.u32 %r2, buf;
	add.u32 %r2, %r2, %r1;
	ld.shared.u8 %h1, [%r2];
	cvt.u64.u32 %rd4, %r1;
	add.u64 %rd4, %rd3, %rd4;
	st.global.u8 [%rd4], %h1;
	ret;
}}
"""


POINT_AT_B = ("\ttensormap.replace.tile.global_address.shared::cta.b1024.b64 [tm_s], %rd1;\n"
              "\tmov.u32 %r5, 8;\n"
              "\ttensormap.replace.tile.global_dim.shared::cta.b1024.b32 [tm_s], 1, %r5;\n"
              "\tmov.b64 %rd5, 32;\n"
              "\ttensormap.replace.tile.global_stride.shared::cta.b1024.b64 [tm_s], 0, %rd5;\n")


def _args():
    a = np.arange(64, dtype=np.uint8).reshape(4, 16)  # the parameter's map: 16 x 4 of A
    b = (np.arange(256, dtype=np.uint32) * 7 % 251).astype(np.uint8).reshape(8, 32)
    tm = TensorMap("uint8", a, (16, 4), (16,), (16, 4))
    return tm, b, np.zeros(128, np.uint8), np.zeros(64, np.uint8)


def test_grouped_gemm_style_update_reads_the_new_tensor(assemble):
    ptx = kernel(POINT_AT_B)
    assemble(ptx)
    tm, b, ws, out = _args()
    run_ptx(ptx, "k", [tm, b, ws, out], block=(64, 1, 1), strict=True)
    # box {0, 4}: rows 4..7 of B (8 rows now, a 32-byte row pitch), its first 16 bytes each
    np.testing.assert_array_equal(out.reshape(4, 16), b[4:8, :16])
    m, gaddr = decode(ws.tobytes(), "ws")  # the published map: B's geometry
    assert m.global_dim == (16, 8) and m.global_strides == (32,) and m.box_dim == (16, 4)


def test_map_built_from_zeroed_bytes(assemble):
    """Triton's device-side descriptor: every field given by tensormap.replace (ISA values:
    rank 1 = 2D, elemtype 0 = u8, swizzle_mode 0, fill_mode 0)."""
    build = ("\ttensormap.replace.tile.global_address.shared::cta.b1024.b64 [tm_s], %rd1;\n"
             "\ttensormap.replace.tile.rank.shared::cta.b1024.b32 [tm_s], 1;\n"
             "\ttensormap.replace.tile.box_dim.shared::cta.b1024.b32 [tm_s], 0, 16;\n"
             "\ttensormap.replace.tile.box_dim.shared::cta.b1024.b32 [tm_s], 1, 4;\n"
             "\ttensormap.replace.tile.global_dim.shared::cta.b1024.b32 [tm_s], 0, 32;\n"
             "\ttensormap.replace.tile.global_dim.shared::cta.b1024.b32 [tm_s], 1, 8;\n"
             "\ttensormap.replace.tile.global_stride.shared::cta.b1024.b64 [tm_s], 0, 32;\n"
             "\ttensormap.replace.tile.element_stride.shared::cta.b1024.b32 [tm_s], 0, 1;\n"
             "\ttensormap.replace.tile.element_stride.shared::cta.b1024.b32 [tm_s], 1, 1;\n"
             "\ttensormap.replace.tile.elemtype.shared::cta.b1024.b32 [tm_s], 0;\n"
             "\ttensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [tm_s], 0;\n"
             "\ttensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [tm_s], 0;\n"
             "\ttensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [tm_s], 0;\n")
    ptx = kernel(build, build_from_zero=True)
    assemble(ptx)
    tm, b, ws, out = _args()
    run_ptx(ptx, "k", [tm, b, ws, out], block=(64, 1, 1), strict=True)
    np.testing.assert_array_equal(out.reshape(4, 16), b[4:8, :16])


def test_isa_elemtype_order():
    """The ISA's .elemtype table differs from the driver's enum at 8-10 (f32.ftz, f64, bf16)."""
    assert ELEMTYPES[7:11] == ("float32", "float32_ftz", "float64", "bfloat16")
    a = np.zeros((4, 8), np.uint16)
    raw = encode(TensorMap("bfloat16", a, (8, 4), (16,), (8, 4)), 0x1000)
    assert raw[59] == 10 and raw[58] == 1  # elemtype .bf16, rank 2 - 1
    assert raw[64:] == bytes(64)  # every field in the first 64 bytes (W4)


@pytest.mark.parametrize("edit,why", [
    ("\ttensormap.replace.tile.elemtype.shared::cta.b1024.b32 [tm_s], 20;\n", "outside the ISA"),
    ("\tmov.u32 %r5, 300;\n\ttensormap.replace.tile.box_dim.shared::cta.b1024.b32 [tm_s], 0, %r5;\n",
     "boxDim"),
    ("\tmov.b64 %rd5, 24;\n\ttensormap.replace.tile.global_stride.shared::cta.b1024.b64 [tm_s], 0, %rd5;\n",
     "globalStrides"),
])
def test_an_invalid_edit_faults_where_the_map_is_used(edit, why):
    tm, b, ws, out = _args()
    with pytest.raises(EmulationError, match=why) as e:
        run_ptx(kernel(edit), "k", [tm, b, ws, out], block=(64, 1, 1))
    assert "cp.async.bulk.tensor" in str(e.value)


def test_ord_out_of_range_is_refused():
    edit = "\ttensormap.replace.tile.global_dim.shared::cta.b1024.b32 [tm_s], 5, 8;\n"
    tm, b, ws, out = _args()
    with pytest.raises(EmulationError, match="ord 5 out of range"):
        run_ptx(kernel(edit), "k", [tm, b, ws, out], block=(64, 1, 1))
