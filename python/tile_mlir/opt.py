"""tile-opt: an mlir-opt for tile IR (our Python passes mixed with upstream ones).

    tile-opt [file|-] [-o out] [--pass-pipeline=PIPELINE | --<pass-or-pipeline>[=opts] ...]
             [--split-input-file] [--verify-diagnostics] [--mlir-print-ir-after-all]
             [--list-passes] [--version]
    tile-opt --emit-irdl [-o lib/TileOps.irdl]

Exit status: 0 on success, 1 on any error (or any unmet expectation with --verify-diagnostics).
"""
from __future__ import annotations

import argparse
import os
import sys

__all__ = ["TileOptMain", "main"]

VERSION = "0.1.0"


class TileOptMain:
    def __init__(self, argv: list[str] | None = None, stdout=None, stderr=None):
        self.argv = list(sys.argv[1:] if argv is None else argv)
        self.out = stdout or sys.stdout
        self.err = stderr or sys.stderr

    # -- arguments --------------------------------------------------------------------------------------
    def _parser(self) -> argparse.ArgumentParser:
        p = argparse.ArgumentParser(prog="tile-opt", description="Run pass pipelines over tile IR.")
        p.add_argument("input", nargs="?", default="-", help="input file (default: stdin)")
        p.add_argument("-o", dest="output", default="-", help="output file (default: stdout)")
        p.add_argument("-p", "--pass-pipeline", dest="pipeline", default=None,
                       help="textual pipeline, e.g. 'builtin.module(tile-verify,canonicalize)'")
        p.add_argument("--split-input-file", action="store_true",
                       help="process each chunk between '// -----' lines separately")
        p.add_argument("--verify-diagnostics", action="store_true",
                       help="check diagnostics against expected-* comments in the input")
        p.add_argument("--mlir-print-ir-after-all", action="store_true", help="print IR after every pass")
        p.add_argument("--list-passes", action="store_true", help="list our passes and pipelines")
        p.add_argument("--version", action="store_true", help="print version and bindings")
        p.add_argument("--emit-irdl", action="store_true",
                       help="print the tile dialect in IRDL (lib/TileOps.irdl), generated from OP_SPECS")
        p.add_argument("--no-implicit-verify", action="store_true",
                       help="do not run tile-verify before a pipeline that lacks it")
        return p

    def _split_pass_flags(self) -> tuple[list[str], list[str]]:
        """Pull `--<pass>[=options]` flags (ours, aliases or upstream) out of argv, in order."""
        known = {"-o", "-p", "--pass-pipeline", "--split-input-file", "--verify-diagnostics",
                 "--mlir-print-ir-after-all", "--list-passes", "--version", "--no-implicit-verify", "-h", "--help",
                 "--emit-irdl"}
        rest, flags = [], []
        it = iter(self.argv)
        for a in it:
            if a in ("-o", "-p", "--pass-pipeline"):
                rest += [a, next(it, "")]
            elif a.startswith("--") and a.split("=", 1)[0] not in known:
                name, eq, opts = a[2:].partition("=")
                flags.append(f"{name}{{{opts.strip(chr(34))}}}" if eq else name)
            else:
                rest.append(a)
        return rest, flags

    # -- running ----------------------------------------------------------------------------------------
    def run(self) -> int:
        rest, flags = self._split_pass_flags()
        args = self._parser().parse_args(rest)
        if args.version:
            from .mlir import BINDINGS

            print(f"tile-opt {VERSION} (MLIR Python bindings: {BINDINGS})", file=self.out)
            return 0
        if args.list_passes:
            return self._list_passes()
        if args.emit_irdl:
            return self._emit_irdl(args.output)
        if args.pipeline and flags:
            print("tile-opt: error: use either --pass-pipeline or pass flags, not both", file=self.err)
            return 1
        pipeline = args.pipeline if args.pipeline is not None else ",".join(flags)
        try:
            text = sys.stdin.read() if args.input == "-" else open(args.input, encoding="utf-8").read()
        except OSError as e:
            print(f"tile-opt: error: cannot read '{args.input}': {e.strerror}", file=self.err)
            return 1
        filename = "<stdin>" if args.input == "-" else args.input

        from .context import split_input

        chunks = split_input(text) if args.split_input_file else [(0, text)]
        outputs, failed = [], False
        for _, chunk in chunks:
            ok, out = self._process(chunk, filename, pipeline, args)
            failed |= not ok
            if out is not None:
                outputs.append(out)
        result = "\n// -----\n".join(o.rstrip("\n") for o in outputs)
        if result and not args.verify_diagnostics:
            if args.output == "-":
                print(result, file=self.out)
            else:
                with open(args.output, "w", encoding="utf-8") as f:
                    f.write(result + "\n")
        return 1 if failed else 0

    def _process(self, text: str, filename: str, pipeline: str, args) -> tuple[bool, str | None]:
        from .context import make_context, parse_source
        from .diagnostics import DiagnosticEngine
        from .mlir import MLIRError
        from .passes import (PipelineError, build_pass_manager, pipeline_elements, run_pass_manager,
                             single_pass_elements)

        ctx = make_context()
        engine = DiagnosticEngine()
        engine.attach(ctx)
        out = None
        with engine:
            try:
                module = parse_source(text, filename, ctx)
            except MLIRError as e:
                module = None
                if not engine.diagnostics:  # the handler saw nothing: take them from the exception
                    from .diagnostics import _from_mlir

                    for d in e.error_diagnostics:
                        engine.emit(_from_mlir(d))
            if module is not None:
                with ctx:
                    module_ok = module.verify() if not engine.has_errors() else False
                if module_ok and pipeline:
                    try:
                        elements = pipeline_elements(pipeline)
                        if not args.no_implicit_verify and "tile-verify" not in elements:
                            elements.insert(0, "tile-verify")
                        full = ",".join(elements)
                        steps = (single_pass_elements(full) if args.mlir_print_ir_after_all else [(None, full)])
                        pms = [(label, build_pass_manager(e, ctx)) for label, e in steps]
                    except PipelineError as e:
                        print(f"tile-opt: error: {e}", file=self.err)
                        engine.detach()
                        return False, None
                    for label, pm in pms:
                        if not run_pass_manager(pm, module, ctx, engine):
                            break
                        if label is not None:
                            print(f"// -----// IR Dump After {label} //----- //", file=self.err)
                            print(str(module), file=self.err)
                if not engine.has_errors():
                    out = _render(module)
        engine.detach()
        if args.verify_diagnostics:
            from .verify_diagnostics import check, parse_expectations

            exps, bad = parse_expectations(text, filename)
            problems = bad + check(engine.diagnostics, exps, filename)
            for p in problems:
                print(p, file=self.err)
            return not problems, None
        for d in engine.diagnostics:
            print(d.format(), file=self.err)
        return not engine.has_errors(), out

    def _emit_irdl(self, output: str) -> int:
        from .dialect.irdl import IRDLError, emit_irdl

        try:
            text = emit_irdl()
        except IRDLError as e:
            print(f"tile-opt: error: {e}", file=self.err)
            return 1
        if output == "-":
            self.out.write(text)
        else:
            with open(output, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
        return 0

    def _list_passes(self) -> int:
        from .passes import PIPELINES, passes

        print("Passes (tile_mlir):", file=self.out)
        for name, cls in passes().items():
            print(f"  --{name:<26} {cls.description}", file=self.out)
        print("Pipelines:", file=self.out)
        for name, (text, desc) in PIPELINES.items():
            print(f"  --{name:<26} {desc}", file=self.out)
            print(f"  {'':<28} = {text}", file=self.out)
        print("Any upstream MLIR pass of the bindings may be named too (e.g. --canonicalize, --cse).",
              file=self.out)
        return 0


def _render(module) -> str:
    """The module's text, or its PTX when the pipeline ended in gpu-module-to-binary{format=isa}."""
    from .compiler import binaries_of

    bins = binaries_of(module)
    if bins and all(fmt == "isa" for _, fmt, _ in bins):
        return "\n".join(data.decode() if isinstance(data, bytes) else data for _, _, data in bins)
    return str(module)


def main(argv: list[str] | None = None) -> int:
    # a tool process: skip the bindings' numpy-only attribute builders (see tile_mlir.mlir)
    os.environ.setdefault("TILE_MLIR_FAST_START", "1")
    try:
        return TileOptMain(argv).run()
    except KeyboardInterrupt:
        return 130
