"""Issue #22 class 3: a tile.subview window that starts at an unaligned byte offset. Its copies moved
16-byte vectors at misaligned addresses (a fault on a GPU; tile-sim faults the same) while the region
by the copy's offsets was correct. Now vectors are as wide as the window's known alignment allows
(test/Target/PTX/subview-align.mlir checks the widths); here the data, on tile-sim, against numpy."""
import os

import numpy as np
import pytest

import tile_mlir

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KERNELS = open(os.path.join(ROOT, "test", "Target", "PTX", "subview-align.mlir")).read().split("// -----")


def _kernel(name):
    return next(k for k in KERNELS if f'sym_name = "{name}"' in k)


@pytest.mark.parametrize("name,src,dst", [
    ("static_unaligned", (1, 1), (2, 3)),
    ("static_8_16", (1, 2), (1, 4)),
])
def test_static_windows_copy_the_right_bytes(name, src, dst):
    a = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
    b = np.zeros((16, 64), np.float32)
    tile_mlir.jit(_kernel(name), arch="sm_100a", backend="sim")(a, b)
    want = np.zeros_like(b)
    want[dst[0]:dst[0] + 8, dst[1]:dst[1] + 32] = a[src[0]:src[0] + 8, src[1]:src[1] + 32]
    np.testing.assert_array_equal(b, want)


def test_dynamic_windows_copy_the_right_bytes():
    a = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
    b = np.zeros((16, 64), np.float32)
    tile_mlir.jit(_kernel("dynamic"), arch="sm_100a", backend="sim")(a, b)  # (one CTA: block index 0)
    want = np.zeros_like(b)
    want[0:8, 0:32] = a[0:8, 0:32]
    np.testing.assert_array_equal(b, want)


def test_nested_window_copies_the_right_bytes():
    a = np.arange(8 * 32, dtype=np.float32).reshape(8, 32)
    b = np.zeros((16, 64), np.float32)
    tile_mlir.jit(_kernel("nested"), arch="sm_100a", backend="sim")(a, b)
    want = np.zeros_like(b)
    want[0:8, 5:37] = a
    np.testing.assert_array_equal(b, want)
