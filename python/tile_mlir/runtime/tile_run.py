"""tile-run: compile (or load) a tile kernel, run it on the GPU or the PTX emulator, print or save
its outputs -- in the spirit of mlir-runner.

    tile-run kernel.mlir --seed 1 --print summary
    tile-run artifacts/copy.json a.npy b.npy 4096 --backend gpu --output-dir out/
    tile-run kernel.mlir --arch sm_90a --emit-artifact ship/ --no-run
    tile-run kernel.mlir --explore 1000 --seed 3      (then --replay 3:INDEX for a failing one)
    tile-run artifacts/copy.json --dump-sass --no-run

INPUT is a .mlir tile file (compiled with tile_mlir.driver.compiler.compile, which needs the MLIR
bindings) or an artifact manifest .json written by Artifact.save (runs where MLIR is absent).

Argument values, per kernel parameter (named as the program names its kernel's arguments: ``%A``
is ``A``):
  * positional VALUEs after INPUT, in parameter order, or ``--input NAME=VALUE``; a VALUE is, for
    scalars, a number (``0x`` hex allowed), tried first; else a file named explicitly: ``@FILE`` or
    ``FILE.npy`` (a bare name is never looked up as a file);
  * otherwise buffers are generated: *output* buffers are zeros, the others random data of the
    parameter's dtype/shape from ``--seed`` (default 0; integers uniform in the dtype's range for
    8-bit types, else in [-1000, 1000] / [0, 1000]; floats standard normal, rounded to the narrow
    floats (bfloat16, float8_*) through ml_dtypes; sub-byte elements uniform over their bit
    patterns, one element per byte; the scale factors of a block-scaled MMA, ``artifact.meta["scales"]``,
    E8M0 exponents of 2^-4 .. 2^4, so that outputs of random data are finite; ``--full-range`` draws
    narrow floats and scale factors over every bit pattern, NaN and inf included). Output buffers are those named in
    ``artifact.meta["outputs"]``; without that list, buffers whose name starts with out, dst, res or
    output; ``--zeros NAME`` marks more. Scalars have no default: a missing scalar is an error.
Printed (``--print full``, the default: numpy repr; ``summary``: shape/dtype, min/max/mean of the
finite values, NaN and inf counts, sha256; ``none``; ``--print-inputs`` shows the inputs too, before the
run; ``--expected NAME=FILE.npy`` adds the comparison with an expected output; ``--plot FILE`` draws
outputs, expected values and errors as heat maps, with matplotlib; runtime/show.py) and saved (``--output-dir DIR``: NAME.npy) are the output buffers, or every buffer when
none is known to be an output. ``--emit-artifact DIR`` writes DIR/<kernel>.{json,ptx,cubin}, the
kernel name checked to be a PTX identifier and the paths to stay inside DIR. Errors print one line
``tile-run: error: ...`` (followed by the compiler's diagnostics when compiling failed) and exit
with 1; -v adds the traceback. A .mlir kernel that will run on tile-sim is compiled with line info
(``-O line_info=false`` turns it off), so a fault of the run is printed as MLIR prints a diagnostic,
at the tile IR line: ``kernel.mlir:39:3: error: ...`` (the PTX line follows in the message).
``--explore N`` runs the launch on tile-sim under N explored schedules (``--seed`` seeds both the
generated inputs and the schedules), prints what it found (the first failing schedule, its report
and minimised form) and exits with 1 when a schedule fails; ``--replay SEED:INDEX`` runs one again,
``--systematic N`` searches every order up to a partial-order reduction (docs/emulator.md §15).
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys

import numpy as np

from ..errors import UsageError
from .dtypes import BIT_PATTERNS, numpy_dtype
from .show import summary  # re-exported: the NaN/inf-aware summary line
from tile_mlir.frontend.safe_io import FileReadError, read_file, write_files
from .show import compare, plot, require_matplotlib
from tile_mlir.runtime.device import synchronize
from .backend import forced_backend, surely_sim
from tile_mlir.runtime import jit
from tile_mlir.runtime.cache import compile_cached
from tile_mlir.artifact import Artifact

__all__ = ["main", "build_parser"]

OUTPUT_PREFIXES = ("out", "dst", "res", "output")


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit code 1 (not argparse's usage dump + 2)
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="tile-run", description="Run a tile kernel (.mlir or artifact .json) on the "
                "GPU or the PTX emulator.", epilog="See tile_mlir/runtime/tile_run.py for how "
                "inputs are generated.")
    p.add_argument("input", help=".mlir tile file or artifact manifest .json")
    p.add_argument("values", nargs="*", metavar="VALUE",
                   help="argument values in parameter order: .npy files or numbers")
    p.add_argument("-i", "--input", dest="named", action="append", default=[], metavar="NAME=VALUE",
                   help="value of one parameter (.npy file or number); repeatable")
    p.add_argument("--seed", type=int, default=0, help="seed of generated inputs (default 0)")
    p.add_argument("--zeros", action="append", default=[], metavar="NAME",
                   help="generate this buffer as zeros (treat it as an output)")
    p.add_argument("--full-range", action="store_true",
                   help="generate narrow floats and block scale factors over every bit pattern, NaN and inf "
                        "included (default: values whose products stay finite)")
    p.add_argument("--backend", choices=("auto", "gpu", "sim"), default="auto")
    p.add_argument("--lenient", action="store_true",
                   help="tile-sim: report broken ISA ordering rules as findings instead of errors")
    p.add_argument("--arch", default="auto", help="target for .mlir input (default sm_100a)")
    p.add_argument("--grid", help="X[,Y[,Z]] (default: the artifact's)")
    p.add_argument("--block", help="X[,Y[,Z]] (default: the artifact's)")
    p.add_argument("-O", "--compile-option", action="append", default=[], metavar="KEY=VALUE",
                   help="compile option for .mlir input (VALUE parsed as JSON if possible)")
    p.add_argument("--print", dest="print_mode", choices=("full", "summary", "none"),
                   default="full", help="how to print outputs (default full numpy repr)")
    p.add_argument("--print-inputs", action="store_true",
                   help="print the inputs too (as --print says), before the run")
    p.add_argument("--expected", action="append", default=[], metavar="NAME=FILE.npy",
                   help="the expected value of an output: compared in the summary, drawn by --plot")
    p.add_argument("--plot", metavar="FILE", help="draw the outputs (and expected, |error|) as heat maps "
                   "into FILE (.png, .pdf, ...; needs matplotlib: pip install 'tile_mlir[plot]')")
    p.add_argument("--output-dir", metavar="DIR", help="save outputs as DIR/NAME.npy")
    p.add_argument("--dump-ptx", action="store_true", help="print the PTX")
    p.add_argument("--dump-sass", action="store_true", help="print the SASS (nvdisasm -c)")
    p.add_argument("--emit-artifact", metavar="DIR", help="save the Artifact (json/ptx/cubin)")
    p.add_argument("--no-run", action="store_true", help="stop before running the kernel")
    p.add_argument("-v", "--verbose", action="store_true", help="log the runtime's decisions")
    sim = p.add_argument_group("tile-sim (--backend sim)")
    sim.add_argument("--workers", type=int, metavar="N",
                     help="processes for clusters (default: every core, or TILE_MLIR_SIM_WORKERS)")
    sim.add_argument("--max-steps", type=int, metavar="N",
                     help="step budget in warp-instructions (default: scaled from the launch)")
    sim.add_argument("--max-seconds", type=float, metavar="S",
                     help="wall-clock budget (default: none)")
    sim.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    ex = p.add_argument_group("schedule exploration (tile-sim; docs/emulator.md §15)")
    ex.add_argument("--explore", type=int, metavar="N", help="run under the default schedule and N "
                    "more drawn from --seed (PCT); print the first failing one, exit 1 if any")
    ex.add_argument("--replay", metavar="SEED:INDEX", help="run schedule INDEX of SEED again")
    ex.add_argument("--systematic", type=int, metavar="N", help="every order of the "
                    "synchronisation operations up to a partial-order reduction, at most N runs")
    return p


# ----------------------------------------------------------------------------- helpers
def _exploring(ns) -> bool:
    """--explore / --replay / --systematic: at most one, on tile-sim."""
    modes = [f for f, v in (("--explore", ns.explore), ("--replay", ns.replay),
                            ("--systematic", ns.systematic)) if v is not None]
    if len(modes) > 1:
        raise UsageError(f"{' and '.join(modes)}: give one")
    if modes and ns.backend == "gpu":
        raise UsageError(f"{modes[0]} runs on tile-sim, not with --backend gpu")
    return bool(modes)



def _load_artifact(path: str, arch: str, options: dict):

    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    if path.endswith(".json"):
        try:
            art = Artifact.load(path)
        except (OSError, KeyError, ValueError) as e:
            raise UsageError(f"{path}: not a loadable artifact manifest ({type(e).__name__}: {e})")
        if arch not in ("auto", art.arch):
            raise UsageError(f"{path}: artifact is built for {art.arch}, not {arch}")
        if options:
            raise UsageError("--compile-option applies to .mlir input only")
        return art
    if not path.endswith(".mlir"):
        raise UsageError(f"{path}: expected a .mlir file or an artifact manifest .json")
    try:
        import tile_mlir.driver.compiler  # noqa: F401  (lazy: needs the MLIR bindings)
    except ImportError as e:
        raise UsageError(f"cannot compile {path}: tile_mlir.driver.compiler is unavailable ({e}); "
                         "run an artifact manifest (.json) instead")
    from pathlib import Path

    return compile_cached(Path(path), arch, **options)  # diagnostics name the file


#: the largest .npy argument tile-run reads (an array of a GPU's memory is at most this)
MAX_NPY_BYTES = 1 << 38


def _parse_kv(item: str, what: str) -> tuple[str, str]:
    if "=" not in item:
        raise UsageError(f"{what} expects NAME=VALUE, got {item!r}")
    k, v = item.split("=", 1)
    if not k:
        raise UsageError(f"{what} expects NAME=VALUE, got {item!r}")
    return k, v


def _json_or_str(v: str):
    try:
        return json.loads(v)
    except (ValueError, RecursionError):  # (nesting past the parser's depth: the text as it is)
        return v


def _number(text: str, dtype: str):
    t = text.strip()
    try:
        if dtype.startswith(("int", "uint")) or dtype == "bool":
            return int(t, 0)
        return float(t)
    except ValueError:
        return None


def _value_for(param, text: str):
    """An argument from a VALUE string. A scalar's VALUE is a number first (`16` is 16 even where a
    file named 16 exists); files are read only when named explicitly: `@PATH`, or a path ending in
    .npy."""
    if param.kind == "scalar":
        v = _number(text, param.dtype)
        if v is not None:
            return v
    path = text[1:] if text.startswith("@") else text if text.endswith(".npy") else None
    if path is None:
        if param.kind == "scalar":
            raise UsageError(f"parameter '{param.name}': {text!r} is not a {param.dtype} number "
                             "(to read a .npy file, write @FILE)")
        raise UsageError(f"parameter '{param.name}' is a buffer: give a .npy file (FILE.npy or @FILE), "
                         f"not {text!r}")
    arr = _load_npy(path, f"parameter '{param.name}'")
    if param.kind == "scalar":
        if arr.size != 1:
            raise UsageError(f"parameter '{param.name}' is a scalar, {path} has shape {arr.shape}")
        return arr.reshape(()).item()
    return np.ascontiguousarray(arr)


def _load_npy(path: str, what: str):
    """The array of .npy file `path`, read through safe_io (a regular file of at most
    MAX_NPY_BYTES: no FIFO waited on, no device read without end)."""
    import io

    try:
        data = read_file(path, limit=MAX_NPY_BYTES)
        return np.load(io.BytesIO(data), allow_pickle=False)
    except FileReadError as e:
        raise UsageError(f"{what}: cannot read {e.path}: {e.reason}") from None
    except (OSError, ValueError, EOFError) as e:
        raise UsageError(f"{what}: cannot read {path}: not a .npy array ({e})") from None


def output_names(art, extra=()) -> list[str]:
    bufs = [p.name for p in art.params if p.kind == "buffer"]
    meta_out = art.meta.get("outputs") if isinstance(art.meta, dict) else None
    if meta_out:
        outs = {n for n in bufs if n in meta_out}
    else:
        outs = {n for n in bufs if n.lower().startswith(OUTPUT_PREFIXES)}
    return [n for n in bufs if n in outs or n in extra]  # parameter order


#: the E8M0 exponents a scale factor is drawn from by default: 2^-4 .. 2^4, so that a block-scaled MMA's
#: products of random data (|fp8| <= 448, squared, times two scales, summed over K) stay far from overflow
SCALE_EXPONENTS = (127 - 4, 127 + 4)


def generate(param, rng: np.random.Generator, zeros: bool, scale: bool = False, full_range: bool = False):
    """Random (or zero) data of the parameter's dtype and shape (elements, for a packed one). ``scale``: the
    parameter holds a block-scaled MMA's scale factors (E8M0 bytes: artifact.meta["scales"]); ``full_range``:
    every bit pattern of narrow floats and scale factors, NaN and inf included."""
    dt = param.dtype
    shape = tuple(param.shape)
    if not shape or param.dynamic:
        raise UsageError(f"buffer '{param.name}' has no static shape: pass it with "
                         f"--input {param.name}=FILE.npy")
    if scale and not zeros and not param.bits and np.dtype(_numpy_dtype(param)).itemsize == 1:
        lo, hi = (0, 255) if full_range else SCALE_EXPONENTS
        return rng.integers(lo, hi + 1, shape).astype(np.uint8).view(_numpy_dtype(param))
    if param.bits:  # sub-byte elements, one per byte: every bit pattern is a value
        data = np.zeros(shape, np.uint8) if zeros else \
            rng.integers(0, 1 << param.bits, shape).astype(np.uint8)
        return data.astype(bool) if dt == "bool" else data.view(_numpy_dtype(param))
    if dt in BIT_PATTERNS:
        dtype = _numpy_dtype(param)
        if zeros:
            return np.zeros(shape, dtype)
        if full_range:
            return rng.integers(0, 256, shape).astype(np.uint8).view(dtype)
        if dt == "float8_e8m0fnu":  # exponents only: any pattern but 0xff (NaN)
            return rng.integers(0, 255, shape).astype(np.uint8).view(dtype)
        return rng.standard_normal(shape).astype(np.float32).astype(dtype)
    dtype = np.dtype(dt)
    if zeros:
        return np.zeros(shape, dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if dtype.kind in "iu":
        if dtype.itemsize == 1:
            info = np.iinfo(dtype)
            return rng.integers(int(info.min), int(info.max) + 1, shape).astype(dtype)
        lo = 0 if dtype.kind == "u" else -1000
        return rng.integers(lo, 1001, shape).astype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    raise UsageError(f"cannot generate data of dtype {dt} for '{param.name}'")


def _numpy_dtype(param) -> np.dtype:
    try:
        return numpy_dtype(param.dtype)
    except ImportError as e:
        raise UsageError(f"cannot generate '{param.name}': {e}; or pass it with "
                         f"--input {param.name}=FILE.npy")


def build_args(art, positional, named, seed: int, zeros, full_range: bool = False) -> list:
    params = list(art.params)
    if len(positional) > len(params):
        raise UsageError(f"{art.kernel_name} takes {len(params)} arguments "
                         f"({', '.join(p.name for p in params)}), got {len(positional)} values")
    given: dict[str, str] = {}
    for p, text in zip(params, positional):
        given[p.name] = text
    names = {p.name for p in params}
    for item in named:
        k, v = _parse_kv(item, "--input")
        if k not in names:
            raise UsageError(f"--input {k}: {art.kernel_name} has no parameter {k!r} "
                             f"(parameters: {', '.join(p.name for p in params)})")
        given[k] = v
    for z in zeros:
        if z not in names:
            raise UsageError(f"--zeros {z}: {art.kernel_name} has no parameter {z!r}")
    outs = set(output_names(art, zeros))
    scales = set(art.meta.get("scales") or ()) if isinstance(art.meta, dict) else set()
    rng = np.random.default_rng(seed)
    args = []
    for p in params:
        if p.name in given:
            args.append(_value_for(p, given[p.name]))
        elif p.kind == "scalar":
            raise UsageError(f"scalar parameter '{p.name}' ({p.dtype}) needs a value: "
                             f"--input {p.name}=VALUE")
        else:
            args.append(generate(p, rng, p.name in outs, p.name in scales, full_range))
    return args


def _expected(items, outs) -> dict:
    exp = {}
    for item in items:
        k, v = _parse_kv(item, "--expected")
        if k not in outs:
            raise UsageError(f"--expected {k}: not an output (outputs: {', '.join(outs)})")
        exp[k] = _load_npy(v, f"--expected {k}")
    return exp


# ----------------------------------------------------------------------------- main


def run(ns) -> int:

    if ns.plot and not ns.no_run:  # a missing extra is said before the compile and the run
        try:
            require_matplotlib()
        except ImportError as e:
            raise UsageError(str(e))
    options = dict(_parse_kv(o, "--compile-option") for o in ns.compile_option)
    options = {k: _json_or_str(v) for k, v in options.items()}
    if ns.input.endswith(".mlir") and "line_info" not in options and not ns.no_run:
        if _exploring(ns) or surely_sim(forced_backend() or ns.backend):  # faults at the tile IR line
            options["line_info"] = True
    art = _load_artifact(ns.input, ns.arch, options)
    if ns.dump_ptx:
        sys.stdout.write(art.ptx if art.ptx.endswith("\n") else art.ptx + "\n")
    if ns.dump_sass:
        from tile_mlir.runtime.disasm import disassemble  # (late: tile-run --help loads no disassembler)
        sys.stdout.write(disassemble(art.cubin))
    if ns.emit_artifact:
        path = art.save(ns.emit_artifact)
        print(f"tile-run: wrote {path}", file=sys.stderr)
    if ns.no_run:
        return 0
    args = build_args(art, ns.values, ns.named, ns.seed, ns.zeros, ns.full_range)
    outs = output_names(art, ns.zeros) or [p.name for p in art.params if p.kind == "buffer"]
    expected = _expected(ns.expected, outs)
    if ns.print_inputs and ns.print_mode != "none":
        _print(ns.print_mode, [(f"input {p.name}", a) for p, a in zip(art.params, args)
                               if p.kind == "buffer" and p.name not in outs], {})
    sim_options = {k: v for k, v in (("workers", ns.workers), ("max_steps", ns.max_steps),
                                     ("max_seconds", ns.max_seconds)) if v is not None}
    if ns.no_progress:
        sim_options["progress"] = False
    if ns.lenient:
        sim_options["strict"] = False
    kernel = jit(art, backend=ns.backend, **sim_options)
    if _exploring(ns):
        mode = {"n": ns.explore, "replay": ns.replay, "systematic": ns.systematic}
        r = kernel.explore(seed=ns.seed, **mode)(*args, grid=ns.grid, block=ns.block).sim
        print(r)
        if r.found and r.strategy == "pct":
            print(f"tile-run: replay it with --replay {r.seed}:{r.failure.schedule.index}",
                  file=sys.stderr)
        return 1 if r.found else 0
    result = kernel(*args, grid=ns.grid, block=ns.block)
    for f in getattr(result.sim, "findings", None) or []:  # like a sanitizer's report
        print(f, file=sys.stderr)
    if kernel.last_backend == "gpu":
        synchronize()
    print(f"tile-run: {art.kernel_name} ran on {kernel.last_backend} ({kernel.backend_reason})",
          file=sys.stderr)
    values = {p.name: a for p, a in zip(art.params, args)}
    if ns.output_dir:
        _save_outputs(ns.output_dir, {n: values[n] for n in outs})
    if ns.print_mode != "none":
        _print(ns.print_mode, [(n, values[n]) for n in outs], expected)
    if ns.plot:
        try:
            plot(ns.plot, {n: values[n] for n in outs}, expected)
        except ImportError as e:
            raise UsageError(str(e))
        print(f"tile-run: wrote {ns.plot}", file=sys.stderr)
    del result
    return 0


def _print(mode: str, items, expected) -> None:
    with np.printoptions(threshold=256, edgeitems=4):
        for n, a in items:
            if mode == "summary":
                print(summary(n, a, expected.get(n)))
            else:
                print(f"{n} = {a!r}")
                if n in expected:
                    print(f"{n}: {compare(a, expected[n])}")


def _save_outputs(directory: str, arrays: dict) -> None:
    """DIR/NAME.npy for each output, through the one safe write path (safe_io: no symlink followed)."""
    import io

    files = {}
    for name, a in arrays.items():
        buf = io.BytesIO()
        np.save(buf, a, allow_pickle=False)
        files[name + ".npy"] = buf.getvalue()
    for path in write_files(directory, files):
        print(f"tile-run: wrote {path}", file=sys.stderr)


def main(argv=None) -> int:
    from tile_mlir.tools.cli import guarded  # (a closed pipe, Ctrl-C: no traceback)

    return guarded("tile-run", _main, argv)


def _main(argv) -> int:
    parser = build_parser()
    try:
        ns = parser.parse_args(argv)
    except UsageError as e:
        print(f"tile-run: error: {e}", file=sys.stderr)
        return 1
    except SystemExit as e:  # --help
        return int(e.code or 0)
    if ns.verbose:
        logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        return run(ns)
    except UsageError as e:
        print(f"tile-run: error: {e}", file=sys.stderr)
    except Exception as e:  # TileRuntimeError, CudaError, compiler errors, ...
        msg = str(e).strip().splitlines()
        text = msg[0] if msg else type(e).__name__
        if getattr(e, "source", None) and text.startswith(f"{e.source}: "):
            print(text, file=sys.stderr)  # a tile-sim fault at the tile IR line: MLIR's form, one prefix
        elif type(e).__module__.startswith("tile_mlir") or isinstance(e, (OSError, ValueError)):
            print(f"tile-run: error: {text}", file=sys.stderr)
        else:
            print(f"tile-run: error: {type(e).__name__}: {text}", file=sys.stderr)
        for line in msg[1:]:  # compiler diagnostics (file:line:col: error: ...), not a traceback
            print(line, file=sys.stderr)
        if ns.verbose:
            import traceback
            traceback.print_exc()
    return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
