"""Thin GPU-side runner: run every artifact in the given folders, compare with the expected outputs
shipped beside it, print "match" / "mismatch" per kernel. Imports only numpy, tile_mlir.artifact and
tile_mlir.runtime (no MLIR), so it runs on the H200 box:

    PYTHONPATH=python python3 bench/gpu/run_artifacts.py [DIR ...] [--backend gpu|sim|auto]

DIR defaults to the self-tests (test/fixtures/gpu) and the compiled kernels (bench/gpu/artifacts).

Layout, for a manifest DIR/K.json (written by Artifact.save: K.json, K.ptx, K.cubin):
  inputs    DIR/K.inputs.npz (one entry per parameter name; scalars as 0-d arrays),
            or DIR/K.<param>.npy per parameter;
  expected  DIR/K.expected.npz (entries: output parameter names), or DIR/K.<param>.expected.npy.
A parameter without an input is zeros if it has an expected output (an output buffer), else an
error. Arrays are compared exactly (floats with NaN == NaN). Exit status 1 if any kernel
mismatches or fails, 0 otherwise (kernels the device cannot run are reported "skip").
"""
from __future__ import annotations

import argparse
import glob
import os
import sys
import time

import numpy as np

from tile_mlir.artifact import Artifact
from tile_mlir.runtime import IncompatibleDeviceError, TileRuntimeError, jit

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_DIRS = [os.path.join(ROOT, "test", "fixtures", "gpu"), os.path.join(ROOT, "bench", "gpu", "artifacts")]


def _load_named(base: str, kind: str) -> dict:
    """kind "inputs" or "expected"."""
    out = {}
    npz = f"{base}.{kind}.npz"
    if os.path.exists(npz):
        with np.load(npz, allow_pickle=False) as z:
            out.update({k: z[k] for k in z.files})
    suffix = ".expected.npy" if kind == "expected" else ".npy"
    prefix = os.path.basename(base) + "."
    for path in glob.glob(glob.escape(base) + ".*" + suffix):
        name = os.path.basename(path)[len(prefix):-len(suffix)]
        if kind == "inputs" and name.endswith(".expected"):
            continue
        out[name] = np.load(path, allow_pickle=False)
    return out


def _args(art: Artifact, inputs: dict, expected: dict) -> list:
    args = []
    for p in art.params:
        if p.name in inputs:
            v = inputs[p.name]
            args.append(v.reshape(()).item() if p.kind == "scalar" else np.ascontiguousarray(v))
        elif p.kind == "buffer" and p.name in expected:
            args.append(np.zeros_like(expected[p.name]))
        else:
            raise ValueError(f"no input for parameter '{p.name}'")
    return args


def _diff(name: str, got: np.ndarray, want: np.ndarray) -> str | None:
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"{name}: got {got.dtype}{got.shape}, expected {want.dtype}{want.shape}"
    equal = (np.array_equal(got, want, equal_nan=True) if got.dtype.kind == "f"
             else np.array_equal(got, want))
    if equal:
        return None
    bad = np.argwhere(~((got == want) | ((got != got) & (want != want))))
    i = tuple(int(v) for v in bad[0])
    return (f"{name}: {len(bad)} of {got.size} elements differ, first at {i}: "
            f"got {got[i]!r}, expected {want[i]!r}")


def run_one(manifest: str, backend: str) -> str:
    base = manifest[:-len(".json")]
    art = Artifact.load(manifest)
    expected = _load_named(base, "expected")
    if not expected:
        return f"skip     {art.kernel_name}: no expected outputs beside {manifest}"
    args = _args(art, _load_named(base, "inputs"), expected)
    kernel = jit(art, backend=backend)
    t0 = time.perf_counter()
    try:
        kernel(*args)
    except IncompatibleDeviceError as e:
        return f"skip     {art.kernel_name}: {e}"
    dt = (time.perf_counter() - t0) * 1e3
    values = {p.name: a for p, a in zip(art.params, args)}
    problems = [d for n, want in sorted(expected.items())
                if (d := _diff(n, np.asarray(values[n]), want)) is not None]
    where = f"{art.arch} on {kernel.last_backend}, {dt:.1f} ms incl. copies"
    if problems:
        return f"mismatch {art.kernel_name} ({where}): " + "; ".join(problems)
    return f"match    {art.kernel_name} ({where})"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", metavar="DIR", default=DEFAULT_DIRS)
    ap.add_argument("--backend", default="gpu", choices=("gpu", "sim", "auto"))
    ns = ap.parse_args(argv)
    manifests = [m for d in ns.dirs for m in sorted(glob.glob(os.path.join(d, "*.json")))]
    dirs = " ".join(map(os.path.relpath, ns.dirs))
    if not manifests:
        print(f"run_artifacts: no artifact manifests (*.json) in {dirs}")
        return 1
    failed = 0
    for m in manifests:
        try:
            line = run_one(m, ns.backend)
        except (TileRuntimeError, ValueError, OSError, KeyError) as e:
            line = f"error    {os.path.basename(m)[:-5]}: {type(e).__name__}: {e}"
        print(line, flush=True)
        failed += line.startswith(("mismatch", "error"))
    print(f"run_artifacts: {len(manifests)} artifacts in {dirs}, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
