"""tile-opt: an mlir-opt for tile IR (our Python passes mixed with upstream ones).

    tile-opt [file|-] [-o out] [--pass-pipeline=PIPELINE | --<pass-or-pipeline>[=opts] ...] [flags]

As mlir-opt: the input is verified when parsed (tile-verify runs even without a pipeline, unless
--no-implicit-verify), unregistered dialects are refused unless --allow-unregistered-dialect, flags
may be written with one dash or two (`-split-input-file`), and an unknown flag is reported as such.
`tile-opt --help` lists the flags, our passes and pipelines.

The bindings' own IR-printing instrumentation prints nothing (checked with the bundled LLVM 23 build),
their timing report goes to the C++ stderr, out of reach of a caller's streams, their statistics are
compiled out and they have no crash reproducer; so the --mlir-print-ir-*, --mlir-timing,
--mlir-pass-statistics and --mlir-pass-pipeline-crash-reproducer flags run the pipeline one pass at a
time, printing, timing, counting and keeping the IR between passes here (opt_output.py,
opt_reproducer.py).

With --verify-diagnostics, each chunk whose pipeline succeeded is printed (as mlir-opt does), so that
`tile-opt --split-input-file --verify-diagnostics f.mlir | FileCheck f.mlir` checks a file that mixes
expected-* comments and CHECK lines.

Exit status: 0 on success, 1 on any error (or any unmet expectation with --verify-diagnostics).
"""
from __future__ import annotations

import argparse
import difflib
import os
import sys
import time

from .. import __version__ as VERSION  # its one home (tile_mlir/__init__.py, read by pyproject.toml)
from ..errors import UsageError
from .flags import KNOWN as _KNOWN, OPTIONS as _OPTIONS, TAKES_VALUE as _TAKES_VALUE
from .output import Statistics, Timer, asm, op_counts, render
from ..errors import ArgumentError

__all__ = ["TileOptMain", "main"]

# An input beyond this is refused before it is read into memory (mlir-opt has no limit; ours keeps a
# mistyped path to a huge binary from exhausting the machine).
MAX_INPUT_BYTES = 512 << 20

_BYTECODE_MAGIC = b"ML\xefR"  # what MLIR bytecode starts with (mlir/docs/BytecodeFormat.md)


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # a usage problem is one line, never argparse's exit
        raise UsageError(message)


class TileOptMain:
    def __init__(self, argv: list[str] | None = None, stdout=None, stderr=None):
        self.argv = list(sys.argv[1:] if argv is None else argv)
        self.out = stdout or sys.stdout
        self.err = stderr or sys.stderr
        self._notes: list[str] = []
        self._source_text = ""

    # -- arguments --------------------------------------------------------------------------------------
    def _parser(self) -> argparse.ArgumentParser:
        p = _Parser(prog="tile-opt", description="Run pass pipelines over tile IR, as mlir-opt does.",
                    allow_abbrev=False, add_help=False, formatter_class=argparse.RawDescriptionHelpFormatter)
        p.add_argument("input", nargs="?", default="-", help="input file (default: stdin)")
        p.add_argument("-h", "--help", action="store_true", help="show this help, with the passes, and exit")
        for flags, kw in _OPTIONS:
            p.add_argument(*flags, **kw)
        return p

    def _split_pass_flags(self) -> tuple[list[str], list[str]]:
        """Pull `--<pass>[=options]` flags out of argv, in order; `-flag` is read as `--flag`, as LLVM's
        command-line parser does."""
        rest, flags = [], []
        it = iter(self.argv)
        for a in it:
            if a.startswith("-") and not a.startswith("--") and len(a) > 2 and a[:2] not in ("-o", "-p"):
                a = "-" + a
            name = a.split("=", 1)[0]
            if name in _TAKES_VALUE and "=" not in a:
                rest += [a, next(it, "")]
            elif a.startswith("--") and name not in _KNOWN:
                pass_name, eq, opts = a[2:].partition("=")
                flags.append(f"{pass_name}{{{opts.strip(chr(34))}}}" if eq else pass_name)
            else:
                rest.append(a)
        return rest, flags

    def _fail(self, message: str) -> int:
        print(f"tile-opt: error: {message}", file=self.err)
        return 1

    # -- running ----------------------------------------------------------------------------------------
    def run(self) -> int:
        rest, flags = self._split_pass_flags()
        try:
            args = self._parser().parse_args(rest)
        except UsageError as e:
            return self._fail(f"{e}; try 'tile-opt --help'")
        if args.help:
            return self._help()
        if args.version:
            # (late: main sets TILE_MLIR_FAST_START first, so the bindings load without numpy)
            from ..mlir import BINDINGS, llvm_version

            print(f"tile-opt {VERSION} (MLIR Python bindings: {BINDINGS}, LLVM {llvm_version()})", file=self.out)
            return 0
        if args.list_passes:
            self._list_passes()
            return 0
        if args.show_dialects:
            return self._show_dialects()
        if args.emit_irdl:
            return self._emit_irdl(args.output)
        if args.pipeline and flags:
            return self._fail("use either --pass-pipeline or pass flags, not both")
        unknown = self._unknown_flag(flags)
        if unknown:
            return self._fail(unknown)
        if args.emit_bytecode and args.split_input_file:
            return self._fail("--emit-bytecode writes one module; it cannot be combined with --split-input-file")
        pipeline = args.pipeline if args.pipeline is not None else ",".join(flags)
        if not pipeline and not args.no_implicit_verify:
            pipeline = "tile-verify"  # verify on parse, as mlir-opt does
        if args.verify_each.lower() not in ("true", "false", "1", "0"):
            return self._fail(f"--verify-each: expected true or false, got '{args.verify_each}'")
        args.verify_each = args.verify_each.lower() in ("true", "1")
        if args.remarks_filter is not None:
            import re

            try:
                args.remarks_filter = re.compile(args.remarks_filter)
            except re.error as e:
                return self._fail(f"--remarks-filter: not a regular expression: {e}")
        bad = self._unknown_print_ir_pass(args, pipeline)
        if bad:
            return self._fail(bad)
        text, why = self._read(args.input)
        if text is None:
            return self._fail(why)
        filename = "<stdin>" if args.input == "-" else args.input
        if args.run_reproducer:
            # (late: tile-opt --help and --version load no driver, dialect or frontend)
            from .reproducer import read_reproducer

            if args.pipeline is not None or flags:
                return self._fail("--run-reproducer runs the input's own pipeline: give no pipeline with it")
            found = read_reproducer(text) if isinstance(text, str) else "the input is MLIR bytecode"
            if isinstance(found, str):
                return self._fail(f"--run-reproducer: '{filename}': {found}")
            text, pipeline, args.verify_each = found
        if isinstance(text, bytes) and (args.split_input_file or args.verify_diagnostics):
            return self._fail(f"'{filename}' is MLIR bytecode: --split-input-file and --verify-diagnostics "
                              "read text")

        # (late: tile-opt --help and --version load no driver, dialect or frontend)
        from ..frontend.context import split_input

        chunks = split_input(text) if args.split_input_file and isinstance(text, str) else [(0, text)]
        outputs, failed = [], False
        for _, chunk in chunks:
            ok, out = self._process(chunk, filename, pipeline, args)
            failed |= not ok
            if out is not None:
                outputs.append(out)
        if outputs:  # (with --verify-diagnostics too: the chunks whose pipeline succeeded, as mlir-opt)
            if not self._write(outputs, args.output):
                return 1
        return 1 if failed else 0

    def _read(self, path: str) -> tuple[str | None, str]:
        """(text, "") or (None, why): bytes decoded as UTF-8, with the offset of the first bad byte."""
        name = "<stdin>" if path == "-" else path
        try:
            if path == "-":
                stream = getattr(sys.stdin, "buffer", sys.stdin)
                data = stream.read(MAX_INPUT_BYTES + 1)
            else:  # (safe_io: a regular file, never a FIFO, a device or a directory; bounded)
                # (late: tile-opt --help and --version load no input checks)
                from ..frontend.safe_io import FileReadError, read_file

                try:
                    data = read_file(path, limit=MAX_INPUT_BYTES)
                except FileReadError as e:
                    return None, f"cannot read '{name}': {e.reason}"
        except OSError as e:
            return None, f"cannot read '{name}': {e.strerror or e}"
        if len(data) > MAX_INPUT_BYTES:
            return None, f"'{name}' is larger than {MAX_INPUT_BYTES >> 20} MiB"
        if isinstance(data, str):  # a text stream (tests replace sys.stdin)
            return data, ""
        if data.startswith(_BYTECODE_MAGIC):
            return data, ""
        # (late: tile-opt --help and --version load no input checks)
        from ..frontend.text_checks import TextProblem, decode

        text = decode(data)
        if isinstance(text, TextProblem):
            return None, f"{name}:{text.line}:{text.col}: {text.message}"
        return text, ""

    def _write(self, outputs: list, path: str) -> bool:
        if isinstance(outputs[0], bytes):
            data = outputs[0]
            if path == "-":
                stream = getattr(self.out, "buffer", None)
                if stream is None:
                    self._fail("--emit-bytecode needs -o FILE or a binary stdout")
                    return False
                stream.write(data)
                stream.flush()
                return True
            mode, kw = "wb", {}
        else:
            data = "\n// -----\n".join(o.rstrip("\n") for o in outputs) + "\n"
            if path == "-":
                self.out.write(data)
                return True
            mode, kw = "w", {"encoding": "utf-8", "newline": "\n"}
        try:
            with open(path, mode, **kw) as f:
                f.write(data)
        except OSError as e:
            self._fail(f"cannot write '{path}': {e.strerror or e}")
            return False
        return True

    def _unknown_flag(self, flags: list[str]) -> str | None:
        """The message for the first pass flag that names no pass or pipeline, or None."""
        # (late: tile-opt --help and --version load no driver, dialect or frontend)
        from ..driver.passes import PIPELINES, pass_class

        for element in flags:
            name = element.partition("{")[0]
            if pass_class(name) is not None or name in PIPELINES or _is_upstream_pass(name):
                continue
            message = (f"unknown command line argument '--{name}': not a tile-opt option, nor a pass or "
                       "pipeline; try 'tile-opt --help'")
            near = difflib.get_close_matches(f"--{name}", sorted(_candidates()), n=1)
            return message + (f"; did you mean '{near[0]}'?" if near else "")
        return None

    def _process(self, text: str, filename: str, pipeline: str, args) -> tuple[bool, object]:
        # (late: tile-opt --help and --version load no driver, dialect or frontend)
        from ..frontend.context import make_context
        from ..diagnostics import DiagnosticEngine
        from ..driver.passes import PipelineError, build_pass_manager, pipeline_elements, single_pass_elements
        from ..driver.pipeline import parse, refuse_unregistered

        ctx = make_context()
        self._source_text = text if isinstance(text, str) else ""  # parameter names (param_print.py)
        engine = DiagnosticEngine(remark_filter=args.remarks_filter)
        engine.attach(ctx)
        timer = Timer() if args.mlir_timing else None
        stats = Statistics() if args.mlir_pass_statistics else None
        out = None
        with engine:
            start = time.perf_counter()
            # the compile's parse stage (pipeline.parse): the same refusal of unregistered dialects
            if isinstance(text, bytes):
                module = _parse_bytecode(text, filename, ctx, engine)
                if module is not None and not args.allow_unregistered_dialect \
                        and refuse_unregistered(module, ctx, engine) is not None:
                    module = None
            else:
                module = parse(text, filename, ctx, engine, allow_unregistered=args.allow_unregistered_dialect)
            if timer:
                timer.add("Parser", time.perf_counter() - start)
            if module is not None and not engine.has_errors():
                with ctx:
                    module_ok = module.verify()
                if module_ok and pipeline:
                    try:
                        elements = pipeline_elements(pipeline)
                        if not args.no_implicit_verify and elements[:1] != ["tile-verify"]:
                            elements.insert(0, "tile-verify")  # no pass sees IR our verifier did not accept
                        full = ",".join(elements)
                        if args.dump_pass_pipeline:
                            print(f"Pass Manager with {len(elements)} passes:\nbuiltin.module({full})\n",
                                  file=self.err)
                        local = bool(args.crash_reproducer and args.local_reproducer)
                        stepwise = timer is not None or _prints_ir(args) or bool(args.crash_reproducer) or stats is not None
                        steps = single_pass_elements(full) if stepwise else [(None, full)]
                        pms = [(label, e, build_pass_manager(e, ctx, verify_each=args.verify_each))
                               for label, e in steps]
                    except PipelineError as e:
                        engine.detach()
                        return self._fail(str(e)) == 0, None
                    start_ir = _located(module) if args.crash_reproducer else None
                    failed_step = self._run_steps(pms, module, ctx, engine, args, timer, snapshot=local,
                                                 stats=stats)
                    if failed_step is not None and args.crash_reproducer:
                        self._reproducer(args, failed_step, full, start_ir)
                if not engine.has_errors():
                    start = time.perf_counter()
                    out = render(module, args, self._source_text)
                    if timer:
                        timer.add("Output", time.perf_counter() - start)
        engine.detach()
        if timer:
            timer.report(self.err)
        if stats is not None:
            stats.report(self.err)
        if args.verify_diagnostics:
            # (late: tile-opt --help and --version load no driver, dialect or frontend)
            from .verify_diagnostics import check, parse_expectations

            exps, bad = parse_expectations(text, filename)
            problems = bad + check(engine.diagnostics, exps, filename)
            ok = not problems
        else:
            problems, ok = [d.format() for d in engine.diagnostics], not engine.has_errors()
        for line in problems + self._notes:  # (the reproducer's note after the diagnostics, as mlir-opt)
            print(line, file=self.err)
        self._notes.clear()
        return ok, out

    def _run_steps(self, pms, module, ctx, engine, args, timer, snapshot: bool = False, stats=None):
        """Run each step; None, or (label, element, the IR before it if `snapshot`) of the one that failed."""
        # (late: tile-opt --help and --version load no driver, dialect or frontend)
        from ..driver.passes import run_pass_manager

        before = {n for v in args.mlir_print_ir_before for n in v.split(",")}
        after = {n for v in args.mlir_print_ir_after for n in v.split(",")}
        for label, element, pm in pms:
            arg = _pass_argument(element)
            if label is not None and (args.mlir_print_ir_before_all or arg in before):
                self._dump(f"Before {label}", module, args)
            ir_before = _located(module) if snapshot else None
            counts = op_counts(module) if stats is not None else None
            start = time.perf_counter()
            ok = run_pass_manager(pm, module, ctx, engine)
            if timer:
                timer.add(label or "pipeline", time.perf_counter() - start)
            if stats is not None:
                stats.add(label or "pipeline", counts, op_counts(module))
            if not ok:
                if label is not None and args.mlir_print_ir_after_failure:
                    self._dump(f"After {label} Failed", module, args)
                return label, element, ir_before
            if label is not None and (args.mlir_print_ir_after_all or arg in after):
                self._dump(f"After {label}", module, args)

    def _reproducer(self, args, failed_step, pipeline: str, start_ir: str) -> None:
        # (late: tile-opt --help and --version load no driver, dialect or frontend)
        from .reproducer import reproducer_text

        label, element, ir_before = failed_step
        if args.local_reproducer:
            pipeline, start_ir = element, ir_before
        path = args.crash_reproducer
        try:
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(reproducer_text(start_ir, pipeline, args.verify_each))
        except OSError as e:
            self._fail(f"--mlir-pass-pipeline-crash-reproducer: cannot write '{path}': {e.strerror or e}")
            return
        where = f" while executing '{_pass_argument(element)}'" if label is not None else ""
        self._notes.append(f"tile-opt: note: pipeline failed{where}: reproducer generated at '{path}' "
                           f"(tile-opt --run-reproducer {path})")

    def _dump(self, what: str, module, args) -> None:
        text = f"// -----// IR Dump {what} //----- //\n{asm(module, args, self._source_text)}"
        if args.mlir_print_ir_tree_dir is None:
            print(text, file=self.err)
            return
        self._dumps = getattr(self, "_dumps", 0) + 1
        name = "".join(c if c.isalnum() or c in "-_" else "_" for c in what)[:80]
        from ..frontend.safe_io import write_files  # (late: tile-opt --help and --version load no input checks)

        try:  # (safe_io: no symbolic link in the directory followed out of it)
            write_files(args.mlir_print_ir_tree_dir, {f"{self._dumps:03d}_{name}.mlir": (text + "\n").encode()})
        except ArgumentError as e:
            self._fail(f"--mlir-print-ir-tree-dir: {e}")

    def _unknown_print_ir_pass(self, args, pipeline: str) -> str | None:
        """The error for a --mlir-print-ir-before/after name that names no pass of the pipeline."""
        names = {n.strip() for v in args.mlir_print_ir_before + args.mlir_print_ir_after for n in v.split(",")}
        if not names:
            return None
        # (late: tile-opt --help and --version load no driver, dialect or frontend)
        from ..driver.passes import PipelineError, single_pass_elements

        try:
            known = {_pass_argument(e) for _, e in single_pass_elements(pipeline)} | {"tile-verify"}
        except PipelineError:
            return None  # (the pipeline's own error is reported when it is built)
        for name in sorted(names - known):
            near = difflib.get_close_matches(name, sorted(known), n=1)
            return (f"--mlir-print-ir-before/after: no pass '{name}' in the pipeline (its passes: "
                    f"{', '.join(sorted(known))})" + (f"; did you mean '{near[0]}'?" if near else ""))
        return None

    def _help(self) -> int:
        self._parser().print_help(self.out)
        print(file=self.out)
        self._list_passes()
        return 0

    def _list_passes(self) -> None:
        # (the specs alone: --help loads no pass, so neither the bindings nor the lowerings)
        from ..driver.pass_specs import PASSES, PIPELINES, option_help

        print("Passes (tile_mlir):", file=self.out)
        for name, spec in PASSES.items():
            print(f"  --{name:<26} {spec.description}", file=self.out)
            for opt, text in option_help(name):
                print(f"  {'':<6}{opt + '=<value>':<22} {text}", file=self.out)
        print("Pipelines:", file=self.out)
        for name, (text, desc) in PIPELINES.items():
            print(f"  --{name:<26} {desc}", file=self.out)
            print(f"  {'':<28} = {text}", file=self.out)
        print("Any upstream MLIR pass of the bindings may be named too (e.g. --canonicalize, --cse).",
              file=self.out)

    def _show_dialects(self) -> int:
        # (late: tile-opt --help and --version load no driver, dialect or frontend)
        from ..frontend.context import make_context
        # (late: main sets TILE_MLIR_FAST_START first, so the bindings load without numpy)
        from ..mlir import registered_dialects

        names = sorted(set(registered_dialects(make_context())) | {"tile"})
        print("Available Dialects: " + ", ".join(names), file=self.out)
        return 0

    def _emit_irdl(self, output: str) -> int:
        # (late: tile-opt --help and --version load no driver, dialect or frontend)
        from ..dialect.irdl import IRDLError, emit_irdl

        try:
            text = emit_irdl()
        except IRDLError as e:
            return self._fail(str(e))
        return 0 if self._write([text], output) else 1


def _prints_ir(args) -> bool:
    return bool(args.mlir_print_ir_before_all or args.mlir_print_ir_after_all or args.mlir_print_ir_before
                or args.mlir_print_ir_after or args.mlir_print_ir_after_failure)


def _located(module) -> str:
    """The module's text with its locations: what a reproducer starts from."""
    return module.operation.get_asm(enable_debug_info=True)


def _pass_argument(element: str) -> str:
    """The pass argument of a single-pass element: `gpu.module(convert-scf-to-cf)` -> convert-scf-to-cf."""
    name = element.partition("{")[0]
    while "(" in name:
        name = name.partition("(")[2]
    return name.rstrip(")").strip()


def _is_upstream_pass(name: str) -> bool:
    """Whether the bindings register a pass or pipeline `name` (whatever it nests on)."""
    # (late: tile-opt --help and --version load no driver, dialect or frontend)
    from ..frontend.context import make_context
    from ..mlir import passmanager  # (late: main sets TILE_MLIR_FAST_START first, so the bindings load without numpy)

    with make_context():
        try:
            passmanager.PassManager.parse(f"builtin.module({name})")
        except ValueError as e:
            return "does not refer to a registered pass" not in str(e)
    return True


def _candidates() -> set[str]:
    from ..driver.pass_specs import PASSES, PIPELINES  # (late: tile-opt --help and --version load no driver)

    return set(_KNOWN) | {f"--{n}" for n in PASSES} | {f"--{n}" for n in PIPELINES}


def _parse_bytecode(data: bytes, filename: str, context, engine):
    from .bytecode_checks import parse_bytecode  # strings, size and nesting checked; a large stack
    from ..diagnostics import _from_mlir  # (late: tile-opt --help and --version load no driver, dialect or frontend)
    from ..mlir import MLIRError  # (late: main sets TILE_MLIR_FAST_START first, so the bindings load without numpy)

    try:
        return parse_bytecode(data, filename, context)
    except MLIRError as e:
        if not engine.diagnostics:  # the handler saw nothing: take them from the exception
            for d in e.error_diagnostics:
                engine.emit(_from_mlir(d))
        return None


def main(argv: list[str] | None = None) -> int:
    # a tool process: skip the bindings' numpy-only attribute builders (see tile_mlir.mlir)
    os.environ.setdefault("TILE_MLIR_FAST_START", "1")
    from ..tools.cli import guarded  # (a closed pipe, Ctrl-C, bindings that do not load: one line, no traceback)

    return guarded("tile-opt", lambda: TileOptMain(argv).run())
