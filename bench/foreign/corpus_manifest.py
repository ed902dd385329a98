"""Write test/fixtures/foreign/MANIFEST.json: what the committed corpus was made from and of.

    PYTHONPATH=python .venv/bin/python bench/foreign/corpus_manifest.py --cutlass /path/to/cutlass

Per kernel: its source (the CuTe DSL example at its cutlass commit, the Triton tutorial's kernel
text, or bench/foreign/triton_dot.py) with the sha256 of that source, and the sha256 of each fixture
file; for the corpus: the sha256 of every generator script and the toolchains' versions.
test/python/sim/test_foreign_corpus.py checks the fixtures and generators against it, so a fixture
changed by hand, or a generator changed without regenerating, fails.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIX = os.path.join(ROOT, "test/fixtures/foreign")
GENERATORS = ["make_corpus.py", "cute_cases.py", "cute_generic.py", "blockscaled.py",
              "host_eval.py", "tma_layouts.py", "triton_corpus.py", "triton_cases.py", "triton_dot.py",
              "launch_seq.py", "seq_cases.py", "triton_desc.py",
              "tutorial_nvfp4.py", "cute_extra_cases.py",
              "blockscaled_tensors.py"]
TOOLCHAINS = {"nvidia-cutlass-dsl": "4.8.1 (the project's venv)",
              "triton": "3.9.0 (softmax, matmul, layer norm), 3.5.0 (fused attention with block "
                        "pointers, Gluon's TMEM tutorial, Gluon's TMA tutorial with host "
                        "TensorDescriptors: the stored sources' API), private "
                        "venvs (bench/foreign/triton_corpus.py); triton_dot 3.6.0",
              "ptxas": "13.0 (the tests' ptxas; Triton's PTX .version 9.0)"}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def source_sha(man, cutlass):
    if "kernel_sha256" in man:
        return man["kernel_sha256"]
    if man.get("cutlass_commit"):
        path = f"examples/python/CuTeDSL/cute/{man['example']}"
        return sha(subprocess.run(["git", "-C", cutlass, "show", f"{man['cutlass_commit']}:{path}"],
                                  check=True, capture_output=True).stdout)
    return sha(open(os.path.join(ROOT, man["source"]), "rb").read())


def build(cutlass):
    sys.path.insert(0, HERE)
    import corpus
    kernels = {}
    for name in corpus.names(FIX):
        man = json.load(open(os.path.join(FIX, f"{name}.json")))
        kernels[name] = dict(
            source=man.get("example", man["source"]),
            source_commit=man.get("cutlass_commit") or man.get("triton_commit"),
            source_sha256=source_sha(man, cutlass),
            files={ext: sha(open(os.path.join(FIX, f"{name}.{ext}"), "rb").read())
                   for ext in ("ptx", "json", "npz")})
    gens = {g: sha(open(os.path.join(HERE, g), "rb").read()) for g in GENERATORS}
    return dict(toolchains=TOOLCHAINS, generators=gens, kernels=kernels)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cutlass", required=True, help="a checkout or git dir of NVIDIA/cutlass")
    o = ap.parse_args()
    with open(os.path.join(FIX, "MANIFEST.json"), "w") as f:
        json.dump(build(o.cutlass), f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
