"""Run the foreign corpus on tile-sim and compare with the numpy references (and a GPU's outputs):

    PYTHONPATH=python .venv/bin/python bench/foreign/run_corpus.py [DIR] [--gpu GPU_OUT_DIR] [--strict]

DIR defaults to bench/foreign/corpus (``make_corpus.py --size large``); test/fixtures/foreign holds
the small ones. ``--gpu``: a folder of ``<name>.out.npz`` from bench/foreign/device_run.py, compared
bit for bit with tile-sim's outputs, tile-sim emulating ``--device`` (default sm_90 with ``--gpu``:
device_bundle.py's cubins are sm_90a, and an sm_80 kernel's mma.sync computes as the GPU that runs
it, docs/emulator.md §12.1). Prints per kernel: match, seconds, steps, its findings.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?", default=os.path.join(ROOT, "bench/foreign/corpus"))
    ap.add_argument("--gpu")
    ap.add_argument("--device", help="the GPU tile-sim emulates (default: sm_90 with --gpu, else each .target)")
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--only", nargs="*")
    o = ap.parse_args()
    device = o.device or ("sm_90" if o.gpu else None)
    bad = 0
    for name in corpus.names(o.dir):
        if o.only and name not in o.only:
            continue
        t = time.time()
        try:
            outs, refs, res = corpus.run(o.dir, name, strict=o.strict, max_seconds=3600, device=device)
        except Exception as e:  # report and go on: one kernel's failure is its line
            print(f"{name}: ERROR {str(e).splitlines()[0][:300]}")
            bad += 1
            continue
        line = []
        for n, ref in refs.items():
            man, _, data = corpus.load(o.dir, name)
            eq, how = corpus.compare(man, name, outs[n], ref, data, n)
            bad += not eq
            line.append(f"{n} {'= reference' if eq else 'MISMATCH'} ({how})")
            gpu = o.gpu and os.path.join(o.gpu, f"{name}.out.npz")
            if gpu and os.path.exists(gpu):
                g = np.load(gpu)[n]
                same = np.array_equal(g.view(np.uint8), outs[n].view(np.uint8))
                bad += not same
                line.append(f"{'= GPU' if same else '!= GPU'}")
        print(f"{name}: {', '.join(line)} ({time.time() - t:.1f} s, {res.steps} warp-instructions, "
              f"{len(res.findings)} finding(s))")
        for f in res.findings:
            print(f"    {f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
