"""The foreign corpus's status table on tile-sim: per kernel its source, arch, status and findings.

    PYTHONPATH=python .venv/bin/python bench/foreign/corpus_table.py [DIR] [--only NAME..] [--md OUT]

Status: ``matches`` (bit for bit, or within the manifest's stated tolerance; ``strict`` when the run
broke no ISA rule tile-sim checks, so strict mode runs it too), ``fails at decode`` with every
instruction tile-sim cannot decode (each form, its count and first lines: the decode of the whole
entry, not only its first failure), ``wrong result``, ``deadlock`` / ``budget`` (tile-sim's
reports), or ``error`` with tile-sim's message.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def missing_instructions(folder, name):
    """{opcode form: [lines]} of every instruction of the entry tile-sim's decoder refuses: the
    decode runs over every instruction, each refusal recorded (the launch then stops)."""
    from tile_mlir.sim import EmulationError, opcodes
    seen = collections.defaultdict(list)
    real = opcodes.decode_instruction

    def each(dec, inst):
        try:
            return real(dec, inst)
        except EmulationError as e:
            msg = str(e)
            first = msg.split("\n")[0]
            why = "unknown" if "unknown instruction" in first else re.sub(
                r"^.*?`[^`]*`: ", "", first)[:120]
            seen[(inst.opcode, why)].append(inst.line)
            return None

    opcodes.decode_instruction = each  # decode_all's per-instruction step
    man = corpus.load(folder, name)[0]
    try:
        for i in range(len(corpus.launches(man))):  # every entry of a sequence of launches
            try:
                corpus.run_one(folder, name, i, max_steps=1)
            except Exception:  # the placeholder decodes stop the launch: only the list matters
                pass
    finally:
        opcodes.decode_instruction = real
    return dict(seen)


def status(folder, name, max_seconds):
    man, _, data = corpus.load(folder, name)
    miss = missing_instructions(folder, name)
    if miss:
        parts = [f"`{op}` x{len(lines)} (line {lines[0]}{'' if why == 'unknown' else ': ' + why})"
                 for (op, why), lines in sorted(miss.items(), key=lambda kv: kv[1][0])]
        return "fails at decode", "; ".join(parts), miss
    t = time.time()
    try:
        outs, refs, res = corpus.run(folder, name, max_seconds=max_seconds)
    except Exception as e:
        msg = str(e).split("\n")[0][:300]
        kind = ("deadlock" if "deadlock" in msg.lower() else
                "budget" if "budget" in msg.lower() or "max_seconds" in msg else "error")
        return kind, msg, {}
    bad = []
    for n, ref in refs.items():
        ok, how = corpus.compare(man, name, outs[n], ref, data, n)
        if not ok:
            bad.append(f"{n}: {how}")
    rules = collections.Counter(f.rule for f in res.findings)
    found = ", ".join(f"{r} x{c}" for r, c in sorted(rules.items()))
    took = f"{time.time() - t:.0f} s, {res.steps} warp-instructions"
    if bad:
        return "wrong result", "; ".join(bad) + (f"; findings: {found}" if found else ""), {}
    tol = " (within tolerance)" if man.get("tolerance") else ""
    if not res.findings:
        return f"matches{tol}, strict", took, {}
    return f"matches{tol}, lenient", f"{took}; findings: {found}", {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?", default=os.path.join(ROOT, "test/fixtures/foreign"))
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--md", help="also write the table (markdown) here")
    ap.add_argument("--json", help="also write {name: status, missing instructions} here")
    ap.add_argument("--max-seconds", type=float, default=600)
    o = ap.parse_args()
    rows, missing = [], {}
    for name in corpus.names(o.dir):
        if o.only and name not in o.only:
            continue
        man = json.load(open(os.path.join(o.dir, f"{name}.json")))
        src = man.get("example", man.get("source"))
        st, note, miss = status(o.dir, name, o.max_seconds)
        missing[name] = dict(status=st, note=note,
                             missing=sorted({op for op, _ in miss}))
        rows.append(f"| {name} | {src} | {man['arch']} | {st} | {note.replace('|', '/')} |")
        print(rows[-1], flush=True)
    table = "| kernel | source | arch | status | findings |\n|---|---|---|---|---|\n" + \
        "\n".join(rows) + "\n"
    if o.md:
        with open(o.md, "w") as f:
            f.write(table)
    if o.json:
        with open(o.json, "w") as f:
            json.dump(missing, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
