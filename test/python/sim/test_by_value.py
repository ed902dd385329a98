"""A by-value .param struct holding an address and a run-time shape (the CuTe DSL's tensor with a
run-time layout) binds through sim.ByValue: the pointer field gets the array's address, the other
bytes pass as given, the array is updated after the run and shares its allocation with every
argument that is the same array."""

import numpy as np
import pytest

from tile_mlir.sim import ByValue, EmulationError, run_ptx

PTX = """.version 8.4
.target sm_90a
.address_size 64
.visible .entry k(.param .align 8 .b8 t[16], .param .u64 other)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [t];
	ld.param.u32 %r1, [t+8];
	ld.param.u32 %r6, [t+12];
	ld.param.u64 %rd5, [other];
	mov.u32 %r2, %tid.x;
	setp.eq.u32 %p1, %r2, 0;
	@%p1 st.global.u64 [%rd5], %rd1;
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra DONE;
	mul.wide.u32 %rd2, %r2, 4;
	add.u64 %rd3, %rd1, %rd2;
	ld.global.u32 %r3, [%rd3];
	add.u32 %r4, %r3, %r6;
	st.global.u32 [%rd3], %r4;
DONE:
	ret;
}
"""


def struct(n, add):
    return bytes(8) + n.to_bytes(4, "little") + add.to_bytes(4, "little")


def test_pointer_and_shape_by_value(assemble):
    assemble(PTX, "sm_90a")
    x = np.arange(32, dtype=np.uint32)
    addr = np.zeros(1, np.uint64)
    run_ptx(PTX, "k", [ByValue(struct(20, 100), {0: x}), addr], grid=(1, 1, 1),
            block=(32, 1, 1), strict=True)
    assert x.tolist() == [i + 100 for i in range(20)] + list(range(20, 32))  # n = 20 of them
    assert addr[0] != 0


def test_the_same_array_is_one_allocation(assemble):
    """The struct's pointer and the plain pointer name one buffer: the kernel's store of the
    struct's address lands in the array's first two words."""
    x = np.zeros(32, np.uint32)
    run_ptx(PTX, "k", [ByValue(struct(0, 0), {0: x}), x], grid=(1, 1, 1), block=(32, 1, 1),
            strict=True)
    assert int(x[:2].view(np.uint64)[0]) != 0


@pytest.mark.parametrize("bv, match", [
    (ByValue(bytes(12), {0: np.zeros(4, np.uint32)}), r"12 bytes for a 16-byte parameter"),
    (ByValue(bytes(16), {4: np.zeros(4, np.uint32)}), r"offset 4 is not an 8-byte aligned"),
    (ByValue(bytes(16), {0: [1, 2]}), r"needs a C-contiguous numpy array"),
])
def test_misuse_is_refused(bv, match):
    with pytest.raises(EmulationError, match=match):
        run_ptx(PTX, "k", [bv, np.zeros(2, np.uint64)], grid=(1, 1, 1), block=(32, 1, 1))


def test_a_read_only_array_is_refused():
    x = np.zeros(4, np.uint32)
    x.flags.writeable = False
    with pytest.raises(EmulationError, match=r"pointer field at byte 0 is read-only"):
        run_ptx(PTX, "k", [ByValue(bytes(16), {0: x}), np.zeros(2, np.uint64)],
                grid=(1, 1, 1), block=(32, 1, 1))


def test_a_pointer_field_holds_a_byte_offset_into_its_array(assemble):
    """A host pointer ``base + n`` (a workspace's sub-tensor, as the CuTe DSL's FMHA backward
    passes it): the field's bytes are n = 32, the kernel gets the array's address plus 32, so its
    four additions land on words 8 to 11; an offset at or past the end is refused."""
    x = np.arange(32, dtype=np.uint32)
    at = (32).to_bytes(8, "little") + (4).to_bytes(4, "little") + (100).to_bytes(4, "little")
    out = np.zeros(2, np.uint64)
    run_ptx(PTX, "k", [ByValue(at, {0: x}), out], grid=(1, 1, 1), block=(32, 1, 1), strict=True)
    assert x.tolist() == list(range(8)) + [i + 100 for i in range(8, 12)] + list(range(12, 32))
    with pytest.raises(EmulationError, match="holds offset 128, past the end of its 128-byte"):
        run_ptx(PTX, "k", [ByValue((128).to_bytes(8, "little") + bytes(8), {0: x}), out],
                grid=(1, 1, 1), block=(32, 1, 1))
