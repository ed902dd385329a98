"""Build the self-test artifacts beside the hand-written sm_90a PTX in test/fixtures/gpu/ (ptxas from
the nvidia-cuda-nvcc package, or PATH), with their inputs and expected outputs: the runtime tests and
bench/gpu_run.sh load them from there. Run on the development machine (no GPU needed):

    .venv/bin/python bench/gpu/make_selftest.py [--out test/fixtures/gpu]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

from provenance import ROOT, source_hashes

FIXTURES = os.path.join(ROOT, "test", "fixtures", "gpu")
sys.path.insert(0, os.path.join(ROOT, "python"))

from tile_mlir.artifact import Artifact, Param  # noqa: E402
from tile_mlir.driver.toolchain import find_tool  # noqa: E402


def assemble(ptx: str, arch: str) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        ptxas = find_tool("ptxas") or sys.exit("make_selftest: ptxas not found (pip install nvidia-cuda-nvcc)")
        subprocess.run([ptxas, f"-arch={arch}", src, "-o", out], check=True)
        with open(out, "rb") as f:
            return f.read()


def kernels():
    """(artifact fields, inputs, expected) of each self-test kernel."""
    rng = np.random.default_rng(2024)
    src = rng.integers(0, 256, 4096, dtype=np.uint8)
    n = 4000  # the tail stays zero: checks the scalar and the bound check
    dst = np.zeros(4096, np.uint8)
    dst[:n] = src[:n]
    yield (dict(kernel_name="selftest_copy_u8", block=(128, 1, 1), grid=(32, 1, 1),
                params=(Param("src", "buffer", "uint8", (4096,)),
                        Param("dst", "buffer", "uint8", (4096,)),
                        Param("n", "scalar", "uint32"))),
           {"src": src, "dst": np.zeros(4096, np.uint8), "n": np.array(n, np.uint32)},
           {"dst": dst})

    x = rng.standard_normal(8 * 256).astype(np.float32)
    yield (dict(kernel_name="selftest_smem_reverse_f32", block=(256, 1, 1), grid=(8, 1, 1),
                dynamic_smem=100 * 1024,  # above 48 KB: needs the opt-in attribute
                params=(Param("src", "buffer", "float32", (2048,)),
                        Param("dst", "buffer", "float32", (2048,)))),
           {"src": x, "dst": np.zeros(2048, np.float32)},
           {"dst": x.reshape(8, 256)[:, ::-1].reshape(-1).copy()})

    out = np.zeros(16, np.uint32)
    out[0::2] = np.arange(8) % 2
    out[1::2] = 2
    yield (dict(kernel_name="selftest_cluster_rank", block=(32, 1, 1), grid=(8, 1, 1),
                cluster=(2, 1, 1), params=(Param("out", "buffer", "uint32", (16,)),)),
           {"out": np.zeros(16, np.uint32)}, {"out": out})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=FIXTURES)
    ns = ap.parse_args(argv)
    for fields, inputs, expected in kernels():
        name = fields["kernel_name"]
        source = os.path.join(FIXTURES, name + ".ptx")
        with open(source) as f:
            ptx = f.read()
        art = Artifact(arch="sm_90a", ptx=ptx, cubin=assemble(ptx, "sm_90a"), key=f"selftest:{name}",
                       meta={"outputs": sorted(expected), "sources": source_hashes(__file__, source)},
                       **fields)
        path = art.save(ns.out)
        np.savez(os.path.join(ns.out, name + ".inputs.npz"), **inputs)
        np.savez(os.path.join(ns.out, name + ".expected.npz"), **expected)
        print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
