"""div.full.f32 and div.full.ftz.f32 on the GPU against tile-sim's model (sim/div_full.py over the
measured rcp.approx.ftz.f32): a sample of operand pairs, since all 2^64 cannot be run.

    python3 div_full_check.py gpu OUT.npz [N]      # on the GPU (cupy): inputs and the hardware's results
    python3 div_full_check.py compare OUT.npz       # here: tile-sim's model over the same pairs

The pairs: N random bit patterns of each operand (every exponent, subnormals, NaN, inf), N random
normal pairs, and the divisors around the scaling thresholds 2^126 and 2^-126 and the subnormals.
"""
import sys

import numpy as np

SRC = r'''
extern "C" __global__ void k(const unsigned* a, const unsigned* b, unsigned* d, unsigned* e, unsigned long long n) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; if (i >= n) return;
  float x = __uint_as_float(a[i]), y = __uint_as_float(b[i]), r, s;
  asm volatile("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
  asm volatile("div.full.ftz.f32 %0, %1, %2;" : "=f"(s) : "f"(x), "f"(y));
  d[i] = __float_as_uint(r); e[i] = __float_as_uint(s); }
'''


def pairs(n, seed=7):
    rng = np.random.default_rng(seed)
    raw_a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    raw_b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    norm_a = rng.standard_normal(n).astype(np.float32).view(np.uint32)
    norm_b = rng.standard_normal(n).astype(np.float32).view(np.uint32)
    edges = np.concatenate([np.arange(0x7E7FF000, 0x7E801000, dtype=np.uint32),   # around 2^126
                            np.arange(0x007FF000, 0x00801000, dtype=np.uint32),   # around 2^-126
                            rng.integers(1, 0x00800000, 8192, dtype=np.uint32)])  # subnormal divisors
    edges = np.concatenate([edges, edges | 0x80000000])
    edge_a = rng.standard_normal(edges.size).astype(np.float32).view(np.uint32)
    return np.concatenate([raw_a, norm_a, edge_a]), np.concatenate([raw_b, norm_b, edges])


def gpu(out, n):
    import cupy as cp
    a, b = pairs(n)
    ka, kb = cp.asarray(a), cp.asarray(b)
    kd, ke = cp.empty_like(ka), cp.empty_like(ka)
    k = cp.RawKernel(SRC, "k")
    k(((a.size + 255) // 256,), (256,), (ka, kb, kd, ke, np.uint64(a.size)))
    cp.cuda.Device().synchronize()
    np.savez_compressed(out, a=a, b=b, d=cp.asnumpy(kd), e=cp.asnumpy(ke))
    print(f"{a.size} pairs on {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")


def compare(path):
    sys.path.insert(0, __file__.rsplit("/bench/", 1)[0] + "/python")
    from tile_mlir.sim.div_full import div_full_f32
    from tile_mlir.sim.handlers.approx import scalar
    rcp = scalar("rcp.approx.ftz.f32")
    z = np.load(path)
    a, b, d, e = z["a"], z["b"], z["d"], z["e"]
    bad = {False: [], True: []}
    for i in range(a.size):
        x, y = int(a[i]), int(b[i])
        for ftz, hw in ((False, d), (True, e)):
            m = div_full_f32(x, y, rcp, ftz)
            h = int(hw[i])
            nan = (m & 0x7FFFFFFF) > 0x7F800000 and (h & 0x7FFFFFFF) > 0x7F800000
            if m != h and not nan:
                bad[ftz].append((hex(x), hex(y), hex(h), hex(m)))
    for ftz in (False, True):
        form = "div.full.ftz.f32" if ftz else "div.full.f32"
        print(f"{form}: {len(bad[ftz])} mismatches over {a.size} pairs (NaN payloads not compared)"
              + (f"; first {bad[ftz][:4]}" if bad[ftz] else ""))
    return 1 if bad[False] or bad[True] else 0


if __name__ == "__main__":
    if sys.argv[1] == "gpu":
        gpu(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 18)
    else:
        sys.exit(compare(sys.argv[2]))
