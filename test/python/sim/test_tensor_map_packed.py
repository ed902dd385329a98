"""A load through a dense packed 4-bit map (16U4_ALIGN8B: 16 elements in 8 bytes, no padding in
global or shared memory) moves the packed bytes: tile-sim runs it as the UINT8 map of its bytes,
dimension 0 halved (sim/tensor_map.py `as_bytes`; NVIDIA's NVFP4 GEMM loads its A and B so)."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, TensorMap


def test_a_16u4_align8b_map_is_the_uint8_map_of_its_bytes():
    g = np.arange(4 * 64, dtype=np.uint8).reshape(4, 64)  # 4 rows of 128 packed elements
    tm = TensorMap("16u4_align8b", g, (128, 4), (64,), (64, 2), swizzle="64b")
    b = tm.as_bytes()
    assert (b.data_type, b.global_dim, b.global_strides, b.box_dim, b.swizzle) == \
        ("uint8", (64, 4), (64,), (32, 2), "64b")
    goff, inb, _ = b.box([16, 1], 0)  # element 32 of row 1 is byte 16 of row 1
    assert goff[0] == 64 + 16 and inb.all() and b.box_bytes == 64


def test_only_16u4_align8b_has_a_byte_map():
    g = np.zeros((4, 64), np.uint8)
    with pytest.raises(EmulationError, match="16U4_ALIGN8B"):
        TensorMap("uint8", g, (64, 4), (64,), (32, 2)).as_bytes()
