"""Try Triton's sm_100a PTX of a tl.dot kernel without a GPU (Triton installed in a private
target dir, never the shared venv):

    pip install --no-deps --target /tmp/foreign-site triton==3.6.0
    PYTHONPATH=/tmp/foreign-site .venv/bin/python bench/foreign/triton_dot.py [OUT_DIR]

Compiles a 128x128x64 fp16 -> fp32 tl.dot tile kernel for GPUTarget("cuda", 100, 32) and writes
``triton_dot.{ptx,json,npz}`` into OUT_DIR (default test/fixtures/foreign) as make_corpus.py does:
the manifest's ``buffer`` parameters are global pointers, Triton's two trailing scratch pointers
(global and profile scratch, unused by this kernel: no scratch bytes) are ``bytes`` of zero.
"""
import json
import os
import sys

import numpy as np

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B for one BM x BN tile, A (BM, BK) and B (BK, BN) row-major fp16, C fp32."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b))


def main():
    src = ASTSource(fn=dot_kernel, signature={"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32",
                                              "BM": "constexpr", "BN": "constexpr",
                                              "BK": "constexpr"},
                    constexprs={"BM": 128, "BN": 128, "BK": 64})
    k = triton.compile(src, target=GPUTarget("cuda", 100, 32), options={"num_warps": 4})
    ptx = k.asm["ptx"]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "test", "fixtures", "foreign")
    assert k.metadata.global_scratch_size == 0, "the kernel would need global scratch memory"
    rng = np.random.default_rng(20)
    a = rng.integers(-2, 3, (128, 64)).astype(np.float16)
    b = rng.integers(-2, 3, (64, 128)).astype(np.float16)
    ref = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    nparams = len([l for l in ptx.split("\n") if l.strip().startswith(".param")])
    man = dict(source="bench/foreign/triton_dot.py", compiler=f"triton {triton.__version__}",
               arch="sm_100a", kernel="dot_kernel", shape=dict(M=128, N=128, K=64),
               params=[dict(name=f"param_{i}", kind="buffer", buffer=n)
                       for i, n in enumerate(("a", "b", "c"))]
               + [dict(name=f"param_{i}", kind="bytes", value="00" * 8) for i in range(3, nparams)],
               grid=[1, 1, 1], block=[32 * k.metadata.num_warps, 1, 1], cluster=[1, 1, 1],
               dynamic_smem=k.metadata.shared,
               buffers=[dict(name="a", dtype="float16", shape=[128, 64]),
                        dict(name="b", dtype="float16", shape=[64, 128]),
                        dict(name="c", dtype="float32", shape=[128, 128])],
               inputs=["a", "b"], outputs=["c"], reference="numpy float64 of integer inputs",
               descriptor_words=[])
    with open(os.path.join(out, "triton_dot.ptx"), "w") as f:
        f.write(ptx)
    with open(os.path.join(out, "triton_dot.json"), "w") as f:
        json.dump(man, f, indent=1)
        f.write("\n")
    np.savez_compressed(os.path.join(out, "triton_dot.npz"), a=a, b=b, ref_c=ref)
    print(f"{out}/triton_dot.ptx: {k.metadata.shared} bytes of shared memory, "
          f"{k.metadata.num_warps} warps")


if __name__ == "__main__":
    sys.exit(main())
