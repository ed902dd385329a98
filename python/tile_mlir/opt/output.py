"""tile-opt's output: the module's text (printing flags, buffer-type aliases), the PTX of a pipeline
that ends in gpu-module-to-binary, bytecode, and the --mlir-timing and --mlir-pass-statistics reports."""
from __future__ import annotations

import io
from collections import Counter

__all__ = ["Timer", "Statistics", "op_counts", "asm", "render"]

_BAR = "===" + "-" * 73 + "==="


class Timer:
    """--mlir-timing: wall time per step, printed as mlir-opt's execution time report."""

    def __init__(self):
        self.rows: list[tuple[str, float]] = []

    def add(self, name: str, seconds: float) -> None:
        self.rows.append((name, seconds))

    def report(self, stream) -> None:
        total = sum(s for _, s in self.rows) or 1e-9
        print(f"{_BAR}\n{'... Execution time report ...':^79}".rstrip() + f"\n{_BAR}", file=stream)
        print(f"  Total Execution Time: {total:.4f} seconds\n\n  ----Wall Time----  ----Name----", file=stream)
        for name, s in self.rows + [("Total", total)]:
            print(f"  {s:8.4f} ({100 * s / total:5.1f}%)  {name}", file=stream)


def op_counts(module) -> Counter:
    """How many ops of each name the module holds (the module itself left out)."""
    from ..dialect.ir_utils import iter_ops  # (late: tile-opt --help and --version load no driver, dialect or frontend)

    return Counter(op.name for op in iter_ops(module.operation))


class Statistics:
    """--mlir-pass-statistics, as mlir-opt's report: the bindings' own statistics are compiled out (their
    report is empty, checked with the bundled LLVM 23 build), so each pass's statistics here are the ops
    it removed and added, by name (a dispatch pass: the tile ops it lowered, the NVVM ops it emitted)."""

    def __init__(self):
        self.rows: list[tuple[str, Counter, Counter]] = []

    def add(self, name: str, before: Counter, after: Counter) -> None:
        self.rows.append((name, before - after, after - before))

    def report(self, stream) -> None:
        print(f"{_BAR}\n{'... Pass statistics report ...':^79}".rstrip() + f"\n{_BAR}", file=stream)
        print("'builtin.module' Pipeline", file=stream)
        for name, removed, added in self.rows:
            print(f"  {name}", file=stream)
            for what, counts in (("removed", removed), ("added", added)):
                for op, n in sorted(counts.items()):
                    print(f"    (S) {n:>4} {op} - operations {what}", file=stream)


def asm(module, args, source_text: str = "") -> str:
    """The module as tile-opt prints it: kernel parameters by their names (param_print.py: from the
    kernels' arg_names or ``source_text``, the text the module was parsed from), repeated buffer types
    by alias."""
    if args.mlir_print_debuginfo or args.mlir_print_op_generic or args.mlir_print_local_scope \
            or args.mlir_elide_elementsattrs_if_larger is not None:
        text = module.get_asm(enable_debug_info=args.mlir_print_debuginfo,
                              print_generic_op_form=args.mlir_print_op_generic,
                              use_local_scope=args.mlir_print_local_scope,
                              large_elements_limit=args.mlir_elide_elementsattrs_if_larger)
    else:
        text = str(module)
    # (late: tile-opt --help and --version load no driver, dialect or frontend)
    from .param_print import kernel_param_names, with_param_names
    text = with_param_names(text, kernel_param_names(module, source_text))
    if args.no_type_aliases or args.mlir_print_local_scope:  # (local scope: no alias of any kind)
        return text
    from .alias_print import with_type_aliases  # repeated buffer types named once at the top
    return with_type_aliases(text)


def render(module, args, source_text: str = ""):
    """The module's text (bytes with --emit-bytecode), or its PTX when the pipeline ended in
    gpu-module-to-binary{format=isa}."""
    if args.emit_bytecode:
        buf = io.BytesIO()
        module.write_bytecode(buf)
        return buf.getvalue()
    # (late: tile-opt --help and --version load no driver, dialect or frontend)
    from ..driver.assemble import binaries_of

    bins = binaries_of(module)
    if bins and all(fmt == "isa" for _, fmt, _, _ in bins):
        return "\n".join(data.decode() for _, _, data, _ in bins)
    return asm(module, args, source_text)
