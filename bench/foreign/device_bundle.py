"""Make the H200 bundle of the foreign corpus: the sm_80 / sm_90a kernels, their contracts and
inputs, each assembled here by ptxas for sm_90a (an sm_80 PTX too: PTX is forward compatible, a
cubin is not), and the runner (device_run.py: ctypes over libcuda and numpy, nothing else):

    PYTHONPATH=python .venv/bin/python bench/foreign/device_bundle.py OUT_DIR [FIXTURE_DIR]

On the device (the bundle in the tree it gets, OUT a folder that comes back):

    python3 OUT_DIR/device_run.py $OUT OUT_DIR/fixtures

then here, tile-sim against the hardware bit for bit (every output, approximate math included):

    PYTHONPATH=python .venv/bin/python bench/foreign/run_corpus.py OUT_DIR/fixtures --gpu GPU_OUT
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def ptxas():
    sys.path.insert(0, os.path.join(ROOT, "test", "python", "sim"))
    from ptxgen import find_ptxas
    return find_ptxas()


def main():
    out = os.path.abspath(sys.argv[1])
    src = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "test/fixtures/foreign")
    fix = os.path.join(out, "fixtures")
    os.makedirs(fix, exist_ok=True)
    exe = ptxas()
    kept = []
    for man_path in sorted(glob.glob(os.path.join(src, "*.json"))):
        if os.path.basename(man_path) == "MANIFEST.json":
            continue
        man = json.load(open(man_path))
        if man["arch"] not in ("sm_80", "sm_90a") or any(
                L["cluster"] != [1, 1, 1] for L in man.get("launches", [man])):
            continue
        base = man_path[:-5]
        name = os.path.basename(base)
        for ext in ("ptx", "json", "npz"):
            shutil.copy(f"{base}.{ext}", fix)
        p = subprocess.run([exe, "-arch=sm_90a", f"{base}.ptx", "-o",
                            os.path.join(fix, f"{name}.cubin")], capture_output=True, text=True)
        if p.returncode:
            print(f"{name}: ptxas failed, the driver will JIT the PTX: {p.stderr[:200]}")
        kept.append(name)
    shutil.copy(os.path.join(HERE, "device_run.py"), out)
    digest = hashlib.sha256()
    for f in sorted(os.listdir(fix)):
        digest.update(open(os.path.join(fix, f), "rb").read())
    with open(os.path.join(out, "MANIFEST.txt"), "w") as f:
        f.write(f"{len(kept)} kernels, sha256 of fixtures/ {digest.hexdigest()}\n")
        f.write("\n".join(kept) + "\n")
    print(f"{out}: {len(kept)} kernels")


if __name__ == "__main__":
    sys.exit(main())
