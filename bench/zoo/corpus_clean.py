"""No false reports: explore every kernel of a foreign corpus folder (default: the small fixtures
of test/fixtures/foreign) and print, per kernel, the schedules run and whether any failed
(tile-sim; lenient mode, as the corpus runs).

    PYTHONPATH=python python bench/zoo/corpus_clean.py [DIR] [--n N] [--seed S] [--only NAME..]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "foreign"))
import corpus  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?", default=os.path.join(ROOT, "test", "fixtures", "foreign"))
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*")
    o = ap.parse_args()
    for name in corpus.names(o.dir):
        if o.only and name not in o.only:
            continue
        t = time.perf_counter()
        try:
            _, _, r = corpus.run(o.dir, name, explore=o.n, seed=o.seed, progress=False)
        except Exception as e:  # the default schedule itself fails: its line
            print(f"{name}: ERROR {str(e).splitlines()[0][:200]}", flush=True)
            continue
        dt = time.perf_counter() - t
        verdict = "clean" if not r.found else f"FAILS at {r.schedules}: {r.failure}"
        print(f"{name}: {r.schedules} schedules, {r.counts}, {dt:.1f} s "
              f"({r.schedules / dt:.2f}/s): {verdict}", flush=True)


if __name__ == "__main__":
    main()
