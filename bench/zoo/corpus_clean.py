"""No false reports: explore every kernel of a foreign corpus folder (default: the fixtures of
test/fixtures/foreign) and print, per kernel, the schedules run and whether any failed (tile-sim;
lenient mode, as the corpus runs).  Schedules of --seed run until --n ran or --seconds passed
(run_ptx(explore_seconds=)); --clusters K launches only the first K clusters of the grid under each schedule
(clusters never interleave, so a grid's schedules are its clusters'; run_ptx(explore_clusters=)).

    PYTHONPATH=python python bench/zoo/corpus_clean.py [DIR] [--n N] [--seconds S] [--clusters K]
                                                      [--only NAME..]   (in that order)
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "foreign"))
import corpus  # noqa: E402


def explore(d, name, o):
    """(schedules run, distinct runs, counts, failure or None)."""
    _, _, r = corpus.run(d, name, explore=o.n, seed=o.seed, progress=False,
                         explore_clusters=o.clusters, explore_seconds=o.seconds)
    return r.schedules, r.runs, r.counts, (f"seed {o.seed}: {r.failure}" if r.found else None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?", default=os.path.join(ROOT, "test", "fixtures", "foreign"))
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--clusters", type=int, default=None)
    ap.add_argument("--only", nargs="*")
    o = ap.parse_args()
    clean = failed = errors = 0
    names = corpus.names(o.dir)
    for name in ([n for n in o.only if n in names] if o.only else names):  # in --only's order
        t = time.perf_counter()
        try:
            ran, runs, counts, fail = explore(o.dir, name, o)
        except Exception as e:  # the default schedule itself fails: its line
            print(f"{name}: ERROR {str(e).splitlines()[0][:200]}", flush=True)
            errors += 1
            continue
        dt = time.perf_counter() - t
        clean += fail is None
        failed += fail is not None
        print(f"{name}: {ran} schedules ({runs} distinct runs), {counts}, {dt:.1f} s "
              f"({ran / dt:.2f}/s): "
              f"{'clean' if fail is None else 'FAILS ' + fail}", flush=True)
    print(f"{clean} clean, {failed} failing, {errors} not run", flush=True)


if __name__ == "__main__":
    main()
