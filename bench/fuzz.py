#!/usr/bin/env python3
"""Differential fuzzing of the tensor-memory data paths against tile-sim and numpy.

    bench/fuzz.py --cases N --seed S [--family F ...] [--jobs J] [--invalid-fraction F] [--no-ptxas]
                  [--time-limit SEC]

Each case belongs to a family (FAMILIES below; the hook is documented in /tmp/coord/fuzz.md): a module
of test/python that draws random cases and runs them. Each case is valid by construction, or, for a
fraction, one of the family's invalid kinds that the compiler must reject with a diagnostic naming the
expected check. Every accepted case: compile (sm_100a) -> ptxas -> tile-sim -> compare tensor memory
(128 lanes, all allocated columns) and the readback with numpy built from logical coordinates.

Family "cp" (test/python/cp_fuzz.py): shared -> tensor memory copy_async for every tcgen05.cp shape
(128x256b, 128x128b, 4x256b, 64x128b.warpx2::02_13 / ::01_23, 32x128b.warpx4), dtype bits 4/6/8/16/32
(padded 4-bit and 6-bit by decompressing cps), swizzles none/32B/64B/128B, K steps, tmem column and lane
offsets, the block-scaled scale-factor layouts, cta_group 1 and 2.

Prints cases, matches per label (the shape a family reports), mismatches, rejections (histogram of the
rejecting check names), crashes (any exception other than a TileError with diagnostics) and time; exits
1 on any mismatch, crash, invalid case accepted, invalid case rejected by an unexpected check, or valid
case declined.
"""
from __future__ import annotations

import argparse
import collections
import importlib
import multiprocessing as mp
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "python"))
sys.path.insert(0, os.path.join(HERE, os.pardir, "test", "python"))

# family name -> (module, weight): each module provides INVALID_KINDS, INVALID_CHECK, CHECK_RE,
# random_case(ch, invalid, idx), run_case(case, seed=, ptxas_exe=) and label(case, outcome)
FAMILIES = {
    "cp": ("cp_fuzz", 1.0),
    "ldst": ("ldst_fuzz", 1.0),
    "tma": ("tma_fuzz", 1.0),
}


def _family_of(i: int, seed: int, names: list[str]) -> str:
    import numpy as np
    weights = np.array([FAMILIES[n][1] for n in names])
    rng = np.random.default_rng([seed, i, 1])
    return names[int(rng.choice(len(names), p=weights / weights.sum()))]


def classify(i: int, seed: int, invalid_fraction: float, use_ptxas: bool, family: str):
    """-> (kind, detail, case text) for case i. kind: match | mismatch | reject | crash |
    invalid_accepted | misreject | valid_declined; detail of a match is its label."""
    import numpy as np

    from cp_fuzz import RngChooser
    from e2e_kernels import find_ptxas
    from tile_mlir.diagnostics import TileError

    fam = importlib.import_module(FAMILIES[family][0])
    rng = np.random.default_rng([seed, i])
    ch = RngChooser(rng)
    invalid = ch.pick(fam.INVALID_KINDS) if ch.bool(invalid_fraction) else None
    try:
        case = fam.random_case(ch, invalid, i)
    except Exception:
        return "crash", "generator: " + traceback.format_exc(limit=3), ""
    desc = f"{family}: {case}"
    try:
        out = fam.run_case(case, seed=i, ptxas_exe=find_ptxas() if use_ptxas else None)
    except TileError as e:
        errs = [d for d in e.diagnostics if d.severity == "error"]
        if not errs:
            return "crash", f"TileError without error diagnostics: {e}", desc
        msg = errs[0].message
        m = fam.CHECK_RE.search(msg)
        if not m:
            return ("crash" if invalid is None else "misreject"), f"not a named rejection: {msg[:300]}", desc
        check = m.group(1)
        if invalid is None:  # the generator promised a valid case: a decline is a bug of one of the two
            return "valid_declined", f"{check}: {msg[:300]}", desc
        if check != fam.INVALID_CHECK[invalid]:
            return ("misreject", f"{invalid} rejected by {check}, expected {fam.INVALID_CHECK[invalid]}: "
                    f"{msg[:300]}", desc)
        return "reject", f"{family} {check}", desc
    except Exception as e:  # EmulationError, ptxas rejection, anything else
        return "crash", f"{type(e).__name__}: {str(e)[:600]}", desc
    bad = out.mismatches()
    if bad:
        return "mismatch", "; ".join(bad[:3]), desc
    if invalid is not None:
        return "invalid_accepted", f"{invalid} accepted (and matched)", desc
    return "match", fam.label(case, out), desc


def _work(args):
    return args[0], classify(*args)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--family", action="append", choices=sorted(FAMILIES),
                    help="run only these families (repeatable; default: all)")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--invalid-fraction", type=float, default=0.2)
    ap.add_argument("--no-ptxas", action="store_true", help="skip assembling the PTX with ptxas")
    ap.add_argument("--time-limit", type=float, default=0.0, help="stop after this many seconds (0: none)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every case")
    a = ap.parse_args(argv)

    names = sorted(a.family or FAMILIES)
    t0 = time.perf_counter()
    counts = collections.Counter()
    rejects = collections.Counter()
    matched = collections.Counter()  # by label
    jobs = [(i, a.seed, a.invalid_fraction, not a.no_ptxas, _family_of(i, a.seed, names)) for i in range(a.cases)]
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
    print(f"matches:    {counts['match']}")
    for lab, n in sorted(matched.items()):
        print(f"  {lab:34s} {n}")
    print(f"mismatches: {counts['mismatch']}")
    print(f"rejections: {counts['reject']}")
    for check, n in rejects.most_common():
        print(f"  {check:34s} {n}")
    print(f"crashes:    {counts['crash']}")
    if counts["invalid_accepted"] or counts["misreject"] or counts["valid_declined"]:
        print(f"invalid accepted: {counts['invalid_accepted']}; rejected by an unexpected check: "
              f"{counts['misreject']}; valid cases declined: {counts['valid_declined']}")
    print(f"time:       {dt:.1f} s ({dt / max(done, 1) * 1e3:.0f} ms/case, {a.jobs} job(s); seed {a.seed}; "
          f"families {', '.join(names)})")
    return 1 if any(counts[k] for k in ("mismatch", "crash", "invalid_accepted", "misreject", "valid_declined")) else 0


if __name__ == "__main__":
    sys.exit(main())
