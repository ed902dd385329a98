"""The generated coverage section of docs/emulator.md (between its two marker lines)."""

from __future__ import annotations

import re
from collections import Counter

from .table import by_family, load, summary

BEGIN = "<!-- BEGIN generated: python -m tile_mlir.sim coverage --update-docs docs/emulator.md -->"
END = "<!-- END generated coverage -->"


def section(rs) -> str:
    src = load()["source"]
    s = summary(rs)
    pct = 100.0 * s["supported"] / s["rows"] if s["rows"] else 0.0
    out = [BEGIN, "",
           f"Source: {src['grammar']} at {src['grammar_commit'][:12]} (a transcription of PTX ISA "
           f"{src['grammar_ptx_isa']}), each form checked with {src['ptxas']} at `.version "
           f"{src['ptx_version']}` for {', '.join(src['targets'])}.  Left out as a block: "
           f"texture, surface and video instructions ({', '.join(src['left_out'])}).", "",
           f"**{s['rows']} forms: {s['supported']} supported ({pct:.1f} %), {s['untested']} "
           f"decoded but untested, {s['refused']} refused.**", "",
           "| instruction | forms | supported | untested | refused |", "|---|---:|---:|---:|---:|"]
    for fam, cnt in by_family(rs):
        out.append(f"| {fam} | {sum(cnt.values())} | {cnt['supported']} | {cnt['untested']} | "
                   f"{cnt['refused']} |")
    out += ["", "Refused and untested forms, grouped by reason (at most 6 forms shown per group):", ""]
    groups: dict = {}
    for r in rs:
        if r.status != "supported":  # the reason without the instruction it names
            why = re.sub(r"^[\w.:]+: ", "", r.reason)
            why = re.sub(r" in `[^`]*`$", "", re.sub(r"instruction `[^`]*` ", "instruction ", why))
            groups.setdefault((r.family, r.status, why), []).append(r.form)
    for (fam, status, reason), forms in sorted(groups.items()):
        shown = ", ".join(f"`{f}`" for f in forms[:6]) + (f" and {len(forms) - 6} more" if len(forms) > 6 else "")
        out.append(f"* {fam}, {status} ({len(forms)}): {reason.replace('|', '/')} -- {shown}")
    tests = Counter(r.reason for r in rs if r.status == "supported")
    out += ["", "Tests that check the supported forms:", ""]
    out += [f"* `{t}`: {n} forms" for t, n in sorted(tests.items())]
    out += ["", END, ""]
    return "\n".join(out)


def update(path: str, rs) -> None:
    with open(path) as f:
        text = f.read()
    new = section(rs)
    if BEGIN in text and END in text:
        a = text.index(BEGIN)
        b = text.index(END) + len(END)
        text = text[:a] + new.rstrip("\n") + text[b:]
    else:
        text = text.rstrip("\n") + "\n\n" + new
    with open(path, "w") as f:
        f.write(text)
