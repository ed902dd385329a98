// examples/fp6_to_tmem.mlir through tile-run on the emulator: 32x128 random 6-bit values, packed as
// global memory holds them (96 bytes per row, low bits first), come back from tensor memory as one
// 8-bit container per element (value in bits [5, 0]) in all 128 lanes (row r in lanes r, r+32, r+64,
// r+96). The 6-bit decompression is tile-sim's model (sim/handlers/tcgen05_cp.py decompress_b6), not a
// silicon measurement.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON -c "import numpy as np; v = np.random.default_rng(6).integers(0, 64, (32, 128)).astype(np.uint32); np.save('%t/v.npy', v); w = v.reshape(-1, 4); w = w[:, 0] | w[:, 1] << 6 | w[:, 2] << 12 | w[:, 3] << 18; np.save('%t/a.npy', np.stack([w & 255, (w >> 8) & 255, w >> 16], 1).astype(np.uint8).reshape(32, 96))"
// RUN: tile-run %root/examples/fp6_to_tmem.mlir %t/a.npy --zeros out --backend sim --output-dir %t --print summary 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: %PYTHON -c "import numpy as np; v = np.load('%t/v.npy'); o = np.load('%t/out.npy'); print('lanes', o.shape[0], 'match' if (o == np.tile(v, (4, 1))).all() else 'MISMATCH')" | FileCheck %s

// TOOL: fp6_to_tmem ran on sim
// TOOL: out: shape=(128, 128) dtype=uint8
// CHECK: lanes 128 match
