"""Instruction opcode histograms and shared arrays of PTX text, to check that two compilers were given
kernels of the same weight (bench/compile.py section 3)."""
import re
from collections import Counter

_SHARED = re.compile(r"\.shared\s+\.align\s+(\d+)\s+\.b8\s+\w+\[(\d+)\]")
_REQNTID = re.compile(r"\.reqntid\s+([\d, ]+)")


def opcodes(ptx: str) -> Counter:
    """Each instruction's full opcode (with its qualifiers: `tcgen05.cp.cta_group::1.32x128b.warpx4`),
    counted; inline-asm bodies count as instructions, directives, labels and comments do not."""
    count = Counter()
    for line in ptx.splitlines():
        line = line.split("//", 1)[0].strip()
        if line.startswith("@"):  # predicate guard
            line = line.partition(" ")[2].strip()
        if not line or line[0] in ".{}()" or line.endswith(":") or line.endswith(","):
            continue
        op = line.split(None, 1)[0].rstrip(";")
        if op[0].isalpha():
            count[op] += 1
    return count


def compare(a: Counter, b: Counter, names=("a", "b")) -> list:
    """One line per opcode, the two counts side by side, `*` where they differ; a total line last."""
    width = max(map(len, a | b))
    rows = [f"{'opcode':{width}s} {names[0]:>6s} {names[1]:>6s}"]
    for op in sorted(a | b):
        rows.append(f"{op:{width}s} {a[op]:6d} {b[op]:6d}" + ("  *" if a[op] != b[op] else ""))
    rows.append(f"{'(instructions)':{width}s} {sum(a.values()):6d} {sum(b.values()):6d}")
    return rows


def shared_arrays(ptx: str) -> list:
    """The kernel's static `.shared` byte arrays as "bytes@align", largest first, and its .reqntid."""
    arrays = sorted(((int(n), int(a)) for a, n in _SHARED.findall(ptx)), reverse=True)
    reqntid = _REQNTID.search(ptx)
    return [f"{n}@{a}" for n, a in arrays] + [f"reqntid {reqntid.group(1).strip() if reqntid else '-'}"]
