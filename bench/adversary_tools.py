"""bench/adversary.py's tool campaign (--tool-cases): generated attacks on the surfaces added since round
three (issue 36), each checked for a result, not only for a clean exit.

  layout      `python -m tile_mlir.layout show`: layout text mutated (huge and 5,000-digit integers, deep
              nesting, stray bytes, long names), --shape and --bits out of range; a grid's output past
              its bound is `wrong-result`.
  reproducer  `tile-opt --run-reproducer` on a reproducer block whose pipeline mixes our passes, listed
              upstream passes and passes that read files or run programs, with options and syntax
              mutated, and blocks repeated or cut short (hundreds of KB); a forbidden pass that runs, or
              a read that takes more than REPRODUCER_SECONDS, is `wrong-result`.
  artifact    Artifact.load and `tile-run X.json` with one of the three files a FIFO, a link to a
              device, a directory, non-UTF-8, sparse past the bound or missing (must be a diagnostic), or
              a kernel name past NAME_MAX or with separators saved, dumped (TILE_MLIR_DUMP_DIR), emitted
              (--emit-artifact) and loaded back (must work, every file name within NAME_MAX).
  treedir     tile-opt --mlir-print-ir-tree-dir into a directory whose dump names are planted as links
              (to a file outside, dangling, to a directory) or which is a file: a byte written outside
              is `wrong-result`.
  pool        tile-sim's pool with a worker that exits, is killed or raises, or an executor that is no
              executor or fails: an EmulationError, then the next pooled launch must give the right
              bytes.
  example     the GEMM examples' mains with out-of-range, malformed or boundary option values.

A case is a JSON spec drawn from (seed, index) (make_spec); the child (--tool-child) runs it and exits 0
(result checked), 1 with an `error:` line (diagnostic) or 3 with a `WRONG RESULT:` line.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import random
import signal
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
KINDS = ("layout", "reproducer", "artifact", "treedir", "pool", "example")
KIND_WEIGHTS = (5, 5, 3, 2, 2, 3)
WRONG = "WRONG RESULT:"
REPRODUCER_SECONDS = 10.0
#: the bounds the checks hold the tools to (spelled here, so that the campaign runs on older checkouts too)
MAX_CELLS = 1 << 16  # layout/grid.py
MAX_CODE_BYTES = 256 << 20  # artifact.py: the most of a PTX or cubin Artifact.load reads
NAME_MAX = 255
BIG = "9" * 5000


def make_spec(seed: int, index: int) -> dict:
    rng = random.Random(f"tool:{seed}:{index}")
    kind = rng.choices(KINDS, KIND_WEIGHTS)[0]
    return {"kind": kind, **globals()[f"_{kind}_spec"](rng)}


# ----------------------------------------------------------------------------- specs

LAYOUTS = ("S[(4, 8) : (8, 1)]", "S[(2, 4) : (1, 2)]", "S[(128, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]",
           "Swizzle<128B> o S[(8, 64) : (64, 1)]", "S[(4, 32, 8) : (1@warpid, 1@laneid, 1@reg)]",
           "S[(256, 256) : (256, 1)]", "S[(65536, 65536) : (1, 65536)]")
INTS = ("0", "-1", "1", "65536", "4294967296", "18446744073709551617", "10000000000000000000000", BIG, "007")


def _layout_spec(rng) -> dict:
    text = rng.choice(LAYOUTS)
    for _ in range(rng.choice((0, 1, 1, 2))):
        how = rng.choice(("int", "int", "nest", "byte", "cut", "dup", "name"))
        digits = [i for i, c in enumerate(text) if c.isdigit()]
        if how == "int" and digits:
            i = rng.choice(digits)
            j = i
            while j < len(text) and text[j].isdigit():
                j += 1
            text = text[:i] + rng.choice(INTS) + text[j:]
        elif how == "nest":
            n = rng.choice((50, 2000, 20000))
            text = text.replace("(", "(" * n, 1).replace(")", ")" * n, 1)
        elif how == "byte":
            i = rng.randrange(len(text) + 1)
            text = text[:i] + rng.choice(("\x01", "\u00e9", "}", "@", ":", "[", "\t")) + text[i:]
        elif how == "cut":
            text = text[:rng.randrange(len(text))]
        elif how == "dup":
            text = " + ".join([text] * rng.choice((2, 50)))
        else:
            text = text.replace("TLane", "T" * rng.choice((300, 5000)), 1)
    argv = ["show", text]
    if rng.random() < 0.5:
        argv += ["--shape", rng.choice(("", "x", "0x8", "8", "2x4", "65536x65536", "1x" * 40 + "8", BIG, "-3",
                                        "4,8", "256x256", "3x3"))]
    if rng.random() < 0.3:
        argv += ["--bits", rng.choice(("0", "-8", "3", "16", "1025", BIG, "x"))]
    return {"argv": argv}


ALLOWED = ("tile-verify", "canonicalize", "cse", "canonicalize{max-iterations=2 top-down=false}", "sccp",
           "tile-to-ptx", "tile-to-ptx{chip=sm_90a}", "tile-to-nvvm", "gpu.module(convert-scf-to-cf,convert-to-llvm)",
           "reconcile-unrealized-casts", "gpu-module-to-binary{format=isa}", "symbol-dce")
FORBIDDEN = ("gpu-module-to-binary{format=bin toolkit=/tmp/x}", "gpu-module-to-binary{format=isa opts=-v}",
             "gpu-module-to-binary{format=fatbin}", "transform-interpreter", "transform-preload-library",
             "transform-interpreter{transform-library-paths=/etc/passwd}", "view-op-graph", "inline",
             "gpu.module(nvvm-attach-target{l=/etc/passwd})", "canonicalize{disable-patterns=x}",
             "convert-to-llvm{filter-dialects=x}", "print-op-stats", "func.func(test-print-liveness)")


def _reproducer_spec(rng) -> dict:
    elements = [rng.choice(ALLOWED) for _ in range(rng.randint(0, 4))]
    forbidden = rng.random() < 0.5
    if forbidden:
        elements.insert(rng.randint(0, len(elements)), rng.choice(FORBIDDEN))
    pipeline = ",".join(elements)
    if rng.random() < 0.2:
        pipeline = f"builtin.module({pipeline})"
    block = rng.choice(("whole", "whole", "whole", "repeat", "unclosed-string", "unclosed", "junk"))
    mutate = rng.random() < 0.3
    return {"pipeline": pipeline, "forbidden": forbidden, "block": block,
            "repeat": rng.choice((1000, 20000, 100000)), "mutate": mutate, "at": rng.random(),
            "byte": rng.choice(("(", ")", "{", "}", '"', ",", "\\", "=", " "))}


FILE_KINDS = ("fifo", "devzero", "urandom", "directory", "non-utf8", "sparse", "missing", "valid-link", "empty")


def _artifact_spec(rng) -> dict:
    if rng.random() < 0.3:
        n = rng.choice((200, 250, 256, 300, 1000))
        name = "".join(rng.choice("abcXYZ_019$.-/\u00e9") for _ in range(8)) + "k" * n
        return {"mode": "name", "name": name.lstrip(".").replace("/", "_") if rng.random() < 0.5 else "k" * n}
    return {"mode": "file", "ext": rng.choice((".json", ".ptx", ".cubin")), "file": rng.choice(FILE_KINDS),
            "via": rng.choice(("load", "tile-run"))}


def _treedir_spec(rng) -> dict:
    return {"plant": rng.choice(("file", "file", "dangling", "directory", "tree-is-file", "nested"))}


def _pool_spec(rng) -> dict:
    return {"fault": rng.choice(("exit", "kill", "raise", "executor-str", "executor-int", "executor-failing",
                                 "executor-threads")), "workers": rng.choice((2, 3))}


EXAMPLES = {"gemm_persistent.py": ("-M", "-N", "-K", "--ctas", "--group-m", "--stages", "--tile-n", "--cluster-m"),
            "gemm_persistent_blackwell.py": ("-M", "-N", "-K", "--ctas", "--group-m", "--stages", "--tile-n",
                                             "--cta-group"),
            "gemm_blockscaled.py": ("-M", "-N", "-K", "--stages", "--tile-n", "--cta-group", "--target")}
VALUES = ("0", "-1", "1", "3", "65535", "65536", "65537", "70000", "4294967296", "4294967297", "100000000000",
          BIG, "abc", "", "1e3", "0x10", "sm_80")


def _example_spec(rng) -> dict:
    ex = rng.choice(sorted(EXAMPLES))
    argv = []
    for opt in rng.sample(EXAMPLES[ex], rng.choice((1, 1, 2))):
        argv += [opt, rng.choice(VALUES)]
    return {"example": ex, "argv": argv}


# ----------------------------------------------------------------------------- the child


class Wrong(Exception):
    pass


def _diagnostic(e) -> int:
    print(f"error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:400], file=sys.stderr)
    return 1


def _captured(fn, *args):
    """(fn(*args), stdout text, stderr text), sys.exit of the callee turned into its status."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = fn(*args)
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return rc, out.getvalue(), err.getvalue()


def _status(rc, err: str) -> int:
    """A tool's exit: 0 accepted; non-zero must come with an `error:` line, forwarded."""
    if rc == 0:
        return 0
    line = next((l for l in err.splitlines() if "error" in l), "")
    print(f"error: {line[:300]}" if line else f"(exit {rc}, no error line)", file=sys.stderr)
    return 1


def run_layout(spec, tmp) -> int:
    from tile_mlir.layout import grid

    rc, out, err = _captured(grid.main, spec["argv"])
    if len(out) > 64 * MAX_CELLS:
        raise Wrong(f"the viewer printed {len(out)} characters, past its bound")
    return _status(rc, err)


GOOD = ('"tile.kernel"() ({\n  "tile.barrier"() : () -> ()\n  "tile.return"() : () -> ()\n'
        '}) {sym_name = "k", block = array<i32: 32, 1, 1>} : () -> ()\n')


def run_reproducer(spec, tmp) -> int:
    from tile_mlir.opt.command import TileOptMain
    from tile_mlir.opt.reproducer import reproducer_text

    text = reproducer_text(GOOD, spec["pipeline"], True)
    if spec["mutate"]:
        i = int(spec["at"] * len(text))
        text = text[:i] + spec["byte"] + text[i:]
    head = "{-# external_resources: { mlir_reproducer: { pipeline: \""
    text = {"whole": text, "repeat": GOOD + head * spec["repeat"], "unclosed-string": GOOD + head + "a" * spec["repeat"],
            "unclosed": GOOD + "{-# external_resources: { mlir_reproducer: {" + " x: 1," * spec["repeat"],
            "junk": GOOD + "{-#" + " " * spec["repeat"] + "#-}"}[spec["block"]]
    path = os.path.join(tmp, "repro.mlir")
    with open(path, "w") as f:
        f.write(text)
    out, err = io.StringIO(), io.StringIO()
    t0 = time.monotonic()
    rc = TileOptMain([path, "--run-reproducer"], stdout=out, stderr=err).run()
    took = time.monotonic() - t0
    if took > REPRODUCER_SECONDS:
        raise Wrong(f"--run-reproducer took {took:.1f} s on {len(text)} characters")
    if rc == 0 and spec["forbidden"] and spec["block"] == "whole":
        raise Wrong(f"a reproducer ran a pipeline with a forbidden pass: {spec['pipeline'][:120]}")
    return _status(rc, err.getvalue())


def _demo():
    import tile_mlir

    with open(os.path.join(ROOT, "examples", "demo.mlir")) as f:
        return f.read(), tile_mlir


def run_artifact(spec, tmp) -> int:
    from tile_mlir.artifact import Artifact
    from tile_mlir.runtime import tile_run

    src, tile_mlir = _demo()
    if spec["mode"] == "name":
        src = src.replace('sym_name = "demo"', f'sym_name = {json.dumps(spec["name"])}')
        try:
            art = tile_mlir.compile(src, arch="sm_100a")
        except tile_mlir.TileMLIRError as e:
            return _diagnostic(e)
        try:
            back = Artifact.load(art.save(os.path.join(tmp, "saved")))
            os.environ["TILE_MLIR_DUMP_DIR"] = os.path.join(tmp, "dump")
            tile_mlir.compile(src, arch="sm_100a")
            del os.environ["TILE_MLIR_DUMP_DIR"]
            k = os.path.join(tmp, "k.mlir")
            with open(k, "w") as f:
                f.write(src)
            rc, _, err = _captured(tile_run.main, [k, "--arch", "sm_100a", "--no-run", "--emit-artifact",
                                                   os.path.join(tmp, "ship")])
        except tile_mlir.TileMLIRError as e:
            raise Wrong(f"a valid kernel name failed to save, dump or load: {e}") from None
        if rc != 0 or back.kernel_name != spec["name"]:
            raise Wrong(f"a valid kernel name failed --emit-artifact or round trip: {err.strip()[:200]}")
        for d in ("saved", "dump", "ship"):
            if any(len(os.fsencode(n)) > NAME_MAX for n in os.listdir(os.path.join(tmp, d))):
                raise Wrong(f"a file name past NAME_MAX in {d}")
        return 0
    art = tile_mlir.compile(src, arch="sm_100a")
    manifest = art.save(os.path.join(tmp, "a"))
    target = manifest[:-len(".json")] + spec["ext"]
    real = target + ".real"
    os.rename(target, real)
    kind = spec["file"]
    if kind == "fifo":
        os.mkfifo(target)
    elif kind in ("devzero", "urandom"):
        os.symlink(f"/dev/{kind[3:] if kind == 'devzero' else 'urandom'}", target)
    elif kind == "directory":
        os.mkdir(target)
    elif kind == "non-utf8":
        with open(target, "wb") as f:
            f.write(open(real, "rb").read() + b"\xff\xfe")
    elif kind == "sparse":
        with open(target, "wb") as f:
            f.truncate(MAX_CODE_BYTES + 1 if spec["ext"] != ".json" else (16 << 20) + 1)
    elif kind == "valid-link":
        os.symlink(real, target)
    elif kind == "empty":
        open(target, "wb").close()
    if spec["via"] == "tile-run":
        rc, _, err = _captured(tile_run.main, [manifest, "--no-run"])
        bad = _status(rc, err)
    else:
        try:
            Artifact.load(manifest)
            bad = 0
        except tile_mlir.TileMLIRError as e:
            bad = _diagnostic(e)
    must_fail = kind not in ("valid-link",) and not (kind == "non-utf8" and spec["ext"] == ".cubin")
    if must_fail and bad == 0:
        raise Wrong(f"an artifact whose {spec['ext']} is {kind} was accepted")
    return bad


def run_treedir(spec, tmp) -> int:
    from tile_mlir.opt.command import TileOptMain

    src = os.path.join(tmp, "in.mlir")
    with open(src, "w") as f:
        f.write(GOOD)
    argv = [src, "--tile-verify", "--canonicalize", "--mlir-print-ir-after-all", "--mlir-print-ir-before-all"]
    clean = os.path.join(tmp, "clean")
    TileOptMain(argv + [f"--mlir-print-ir-tree-dir={clean}"], stdout=io.StringIO(), stderr=io.StringIO()).run()
    names = sorted(os.listdir(clean))
    victim = os.path.join(tmp, "victim")
    tree = os.path.join(tmp, "tree", "sub") if spec["plant"] == "nested" else os.path.join(tmp, "tree")
    os.makedirs(os.path.dirname(tree), exist_ok=True)
    plant = spec["plant"]
    if plant == "tree-is-file":
        with open(tree, "w") as f:
            f.write("x")
    else:
        os.makedirs(tree, exist_ok=True)
        if plant in ("file", "nested"):
            with open(victim, "w") as f:
                f.write("keep")
        elif plant == "directory":
            os.mkdir(victim)
        for n in names:
            os.symlink(victim, os.path.join(tree, n))
    err = io.StringIO()
    rc = TileOptMain(argv + [f"--mlir-print-ir-tree-dir={tree}"], stdout=io.StringIO(), stderr=err).run()
    if plant in ("file", "nested") and open(victim).read() != "keep":
        raise Wrong("a dump was written through a link out of the tree directory")
    if plant == "dangling" and os.path.lexists(victim):
        raise Wrong("a dump created the file a dangling link names")
    if plant == "directory" and os.listdir(victim):
        raise Wrong("a dump was written into the directory a link names")
    return _status(rc or (1 if "error" in err.getvalue() else 0), err.getvalue())


POOL_KERNEL = """.version 8.8
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r1, %r3, %r2;
  mul.wide.u32 %rd2, %r4, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
"""


def _die_exit(task):
    os._exit(9)


def _die_kill(task):
    os.kill(os.getpid(), signal.SIGKILL)


def _die_raise(task):
    from tile_mlir.sim import EmulationError
    raise EmulationError("injected fault in a worker")


def run_pool(spec, tmp) -> int:
    from concurrent.futures import Future, ThreadPoolExecutor

    import numpy as np

    from tile_mlir.sim import EmulationError, pool, run_ptx

    def launch(**kw):
        out = np.zeros(6 * 32, np.uint32)
        run_ptx(POOL_KERNEL, "k", [out], grid=(6, 1, 1), block=(32, 1, 1), progress=False, **kw)
        return out

    class Failing(ThreadPoolExecutor):
        def submit(self, fn, *a, **kw):
            f = Future()
            f.set_exception(OSError("connection lost"))
            return f

    fault, workers = spec["fault"], spec["workers"]
    status = 0
    try:
        if fault in ("exit", "kill", "raise"):
            real = pool.run_clusters
            pool.run_clusters = {"exit": _die_exit, "kill": _die_kill, "raise": _die_raise}[fault]
            try:
                launch(workers=workers)
            finally:
                pool.run_clusters = real
                if fault == "raise":  # (workers forked while patched keep the patch: only a dead pool goes)
                    pool.discard(workers)
            raise Wrong(f"a pool whose worker {fault}s gave a result")
        executor = {"executor-str": "dask", "executor-int": 3, "executor-failing": Failing(1),
                    "executor-threads": ThreadPoolExecutor(2)}[fault]
        if not np.array_equal(launch(executor=executor), np.arange(6 * 32)):
            raise Wrong("a thread-pool executor gave wrong bytes")
    except EmulationError as e:
        status = _diagnostic(e)
    if not np.array_equal(launch(workers=workers), np.arange(6 * 32)):
        raise Wrong("the pooled launch after a fault gave wrong bytes")
    return status


def run_example(spec, tmp) -> int:
    import importlib

    sys.path.insert(0, os.path.join(ROOT, "examples"))
    mod = importlib.import_module(spec["example"][:-3])
    rc, _, err = _captured(mod.main, spec["argv"])
    return _status(rc, err)


def child(spec_path: str) -> int:
    """The tool campaign's child; start-up (imports) ends with one byte on the parent's ready pipe."""
    import tempfile

    import numpy  # noqa: F401

    import tile_mlir  # noqa: F401

    spec = json.load(open(spec_path))
    fd = os.environ.get("ADVERSARY_READY_FD")
    if fd:
        os.write(int(fd), b"r")
        os.close(int(fd))
    with tempfile.TemporaryDirectory(prefix="tool-") as tmp:
        try:
            return globals()[f"run_{spec['kind']}"](spec, tmp)
        except Wrong as e:
            print(f"{WRONG} {e}", file=sys.stderr)
            return 3
