"""``python -m tile_mlir.sim coverage``: tile-sim's coverage of the PTX ISA (sim/coverage).

    python -m tile_mlir.sim coverage                 counts per instruction, then totals
    python -m tile_mlir.sim coverage --rows          every row: status, form, test or reason
    python -m tile_mlir.sim coverage --status refused --family cvt
    python -m tile_mlir.sim coverage --markdown      the section docs/emulator.md holds
    python -m tile_mlir.sim coverage --update-docs docs/emulator.md
"""

from __future__ import annotations

import argparse
import sys

from . import coverage
from .coverage import markdown


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tile_mlir.sim")
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("coverage", help="the PTX ISA forms tile-sim supports, untested or refuses")
    c.add_argument("--rows", action="store_true", help="print every row")
    c.add_argument("--status", choices=("supported", "untested", "refused"))
    c.add_argument("--family", help="only this instruction (its syntax file: cvt, setp, ld ...)")
    c.add_argument("--markdown", action="store_true", help="the generated section of the docs")
    c.add_argument("--update-docs", metavar="FILE", help="rewrite the generated section of FILE")
    args = ap.parse_args(argv)
    rs = coverage.rows()
    if args.family:
        rs = [r for r in rs if r.family == args.family]
    if args.update_docs:
        markdown.update(args.update_docs, rs)
        print(f"{args.update_docs}: coverage section rewritten")
        return 0
    if args.markdown:
        sys.stdout.write(markdown.section(rs))
        return 0
    shown = [r for r in rs if args.status in (None, r.status)]
    if args.rows or args.status:
        for r in shown:
            print(f"{r.status:9}  {r.form:60}  {r.reason}")
    else:
        print(f"{'instruction':32} {'rows':>6} {'supported':>10} {'untested':>9} {'refused':>8}")
        for fam, cnt in coverage.by_family(rs):
            print(f"{fam:32} {sum(cnt.values()):6} {cnt['supported']:10} {cnt['untested']:9} "
                  f"{cnt['refused']:8}")
    s = coverage.summary(rs)
    pct = 100.0 * s["supported"] / s["rows"] if s["rows"] else 0.0
    print(f"total: {s['rows']} rows, {s['supported']} supported ({pct:.1f} %), "
          f"{s['untested']} untested, {s['refused']} refused")
    return 0


if __name__ == "__main__":
    sys.exit(main())
