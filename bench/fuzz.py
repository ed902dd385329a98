#!/usr/bin/env python3
"""Differential fuzzing of the smem -> tmem copy_async lowering against tile-sim and numpy.

    bench/fuzz.py --cases N --seed S [--jobs J] [--invalid-fraction F] [--no-ptxas] [--time-limit SEC]

Each case is a random configuration from test/python/e2e_kernels.random_case: valid by construction
(dtype bits 4/6/8/16/32, 6-bit as packing b6x16_p32 with decompressing cps; K-major or core-matrix
shared layouts with swizzle none/32B/64B/128B, random row / K regions on atom boundaries, 1..8 cps,
random tmem column offsets in multiples of 4 columns, cta_group 2 in about 1/6), or, for a fraction, one
of the invalid kinds (mid-atom row / K start, wrong swizzle for the row pitch, missing warpx4 replica,
scope warp, packed 6-bit shared data, column not a multiple of 4) that the dispatch must reject with a
diagnostic naming the check. Every accepted case: compile (sm_100a) -> ptxas -> tile-sim -> compare
TMEM (128 lanes, all allocated columns) and the tcgen05.ld readback with numpy.

Prints cases, matches (by element width), mismatches, rejections (histogram of the rejecting check names), crashes (any
exception other than a TileError with diagnostics) and time; exits 1 on any mismatch, crash, invalid
case accepted, or invalid case rejected by an unexpected check.
"""
from __future__ import annotations

import argparse
import collections
import multiprocessing as mp
import os
import re
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "python"))
sys.path.insert(0, os.path.join(HERE, os.pardir, "test", "python"))

_CHECK = re.compile(r"smem->tmem: (?:declined|rejected): ([\w.]+)")


def classify(i: int, seed: int, invalid_fraction: float, use_ptxas: bool):
    """-> (kind, detail, case text) for case i. kind: match | mismatch | reject | crash |
    invalid_accepted | misreject."""
    import numpy as np

    from e2e_kernels import INVALID_CHECK, INVALID_KINDS, RngChooser, find_ptxas, random_case, run_case
    from tile_mlir.diagnostics import TileError

    rng = np.random.default_rng([seed, i])
    ch = RngChooser(rng)
    invalid = ch.pick(INVALID_KINDS) if ch.bool(invalid_fraction) else None
    try:
        case = random_case(ch, invalid, i)
    except Exception:
        return "crash", "generator: " + traceback.format_exc(limit=3), ""
    desc = f"{case}"
    try:
        out = run_case(case, seed=i, ptxas_exe=find_ptxas() if use_ptxas else None)
    except TileError as e:
        errs = [d for d in e.diagnostics if d.severity == "error"]
        if not errs:
            return "crash", f"TileError without error diagnostics: {e}", desc
        msg = errs[0].message
        m = _CHECK.search(msg)
        if "dispatch" not in msg or not m:
            return ("crash" if invalid is None else "misreject"), f"not a dispatch rejection: {msg[:300]}", desc
        check = m.group(1)
        if invalid is not None and check != INVALID_CHECK[invalid]:
            return "misreject", f"{invalid} rejected by {check}, expected {INVALID_CHECK[invalid]}: {msg[:300]}", desc
        return "reject", check, desc
    except Exception as e:  # EmulationError, ptxas rejection, anything else
        return "crash", f"{type(e).__name__}: {str(e)[:600]}", desc
    bad = out.mismatches()
    if bad:
        return "mismatch", "; ".join(bad[:3]), desc
    if invalid is not None:
        return "invalid_accepted", f"{invalid} accepted (and matched)", desc
    return "match", f"{case.bits}-bit", desc


def _work(args):
    return args[0], classify(*args)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--invalid-fraction", type=float, default=0.2)
    ap.add_argument("--no-ptxas", action="store_true", help="skip assembling the PTX with ptxas")
    ap.add_argument("--time-limit", type=float, default=0.0, help="stop after this many seconds (0: none)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case")
    a = ap.parse_args(argv)

    t0 = time.perf_counter()
    counts = collections.Counter()
    rejects = collections.Counter()
    matched = collections.Counter()  # by element width
    failures = []
    jobs = [(i, a.seed, a.invalid_fraction, not a.no_ptxas) for i in range(a.cases)]
    done = 0
    stopped = False
    pool = mp.get_context("fork").Pool(a.jobs) if a.jobs > 1 else None
    it = pool.imap_unordered(_work, jobs, chunksize=4) if pool else map(_work, jobs)
    try:
        for i, (kind, detail, desc) in it:
            done += 1
            counts[kind] += 1
            if kind == "reject":
                rejects[detail] += 1
            elif kind == "match":
                matched[detail] += 1
            else:
                failures.append((i, kind, detail, desc))
                print(f"case {i}: {kind.upper()}: {detail}\n  {desc}", flush=True)
            if a.verbose:
                print(f"case {i}: {kind} {detail}", flush=True)
            if done % 500 == 0:
                print(f"... {done} cases, {time.perf_counter() - t0:.0f} s", flush=True)
            if a.time_limit and time.perf_counter() - t0 > a.time_limit:
                stopped = True
                break
    finally:
        if pool:
            pool.terminate()
    dt = time.perf_counter() - t0
    print(f"cases:      {done}" + (f" (stopped by --time-limit {a.time_limit:.0f} s; {a.cases} asked)" if stopped else ""))
    widths = ", ".join(f"{w} {n}" for w, n in sorted(matched.items(), key=lambda x: int(x[0].split("-")[0])))
    print(f"matches:    {counts['match']}" + (f" ({widths})" if widths else ""))
    print(f"mismatches: {counts['mismatch']}")
    print(f"rejections: {counts['reject']}")
    for check, n in rejects.most_common():
        print(f"  {check:28s} {n}")
    print(f"crashes:    {counts['crash']}")
    if counts["invalid_accepted"] or counts["misreject"]:
        print(f"invalid accepted: {counts['invalid_accepted']}; rejected by an unexpected check: {counts['misreject']}")
    print(f"time:       {dt:.1f} s ({dt / max(done, 1) * 1e3:.0f} ms/case, {a.jobs} job(s); seed {a.seed})")
    return 1 if any(counts[k] for k in ("mismatch", "crash", "invalid_accepted", "misreject")) else 0


if __name__ == "__main__":
    sys.exit(main())
