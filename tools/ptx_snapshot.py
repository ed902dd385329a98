#!/usr/bin/env python3
"""Write the PTX (and lowered IR) of every example kernel and lit test input to a directory, one file each,
so that a compiler refactoring can be checked byte for byte: run it before and after, then `diff -r`.

    PYTHONPATH=python python tools/ptx_snapshot.py OUT_DIR [--only SUBSTRING] [--jobs N]

What it writes (names are the source path with '/' as '__'):
  compile/<file>[.<chunk>].<arch>.ptx   tile_mlir.compile() of each --split-input-file chunk of every .mlir
                                        under test/ and examples/, for sm_100a and sm_90a; a chunk that does
                                        not compile writes .err (the diagnostics) instead
  run/<file>.<n>.out                    each `tile-opt %s ...` RUN line of a lit test whose pipeline lowers
                                        (tile-to-ptx, tile-to-nvvm, convert-tile-to-nvvm, tile-lower-*): its
                                        stdout, then its stderr after a `// stderr` line
  examples/<script>.<n>.ptx             `examples/<script>.py --ptx ...` for the configurations in EXAMPLES

Nothing here depends on the compiler's internals beyond compile() and tile-opt's command line, so the same
script runs on any commit that has them.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARCHS = ("sm_100a", "sm_90a")
LOWERING = re.compile(r"tile-to-ptx|tile-to-nvvm|convert-tile-to-nvvm|tile-lower-")
SPLIT = re.compile(r"^// -----\s*$", re.M)
# example scripts and the arguments of each configuration printed (--ptx is added)
EXAMPLES = {
    "demo_builder.py": [[]],
    "gemm_blockscaled.py": [[], ["--dtype", "nvfp4"], ["--cta-group", "2"], ["--target", "sm_90a"],
                            ["--target", "sm_90a", "--dtype", "e4m3"]],
    "gemm_persistent.py": [[], ["--epilogue", "registers"], ["--cluster-m", "2"],
                           ["--schedule", "pingpong", "--tile-n", "128"], ["--dtype", "e4m3"]],
    "gemm_persistent_blackwell.py": [[], ["--cta-group", "2"], ["--dtype", "nvfp4"]],
}


def _name(path: str) -> str:
    return os.path.relpath(path, ROOT).replace(os.sep, "__")


def _mlir_files(only: str) -> list[str]:
    out = []
    for top in ("test", "examples"):
        for d, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = sorted(x for x in dirs if x not in ("Output", "python", "fixtures"))
            out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".mlir")]
    return [p for p in out if only in p]


def _compile_file(path: str) -> dict[str, str]:
    """{output name: text} for every chunk and arch of one file (in a subprocess: one context each)."""
    code = (
        "import sys, json, re\n"
        "from tile_mlir.driver.compiler import compile\n"
        "from tile_mlir.diagnostics import TileError\n"
        "path, archs = sys.argv[1], sys.argv[2:]\n"
        "text = open(path).read()\n"
        f"chunks = re.split({SPLIT.pattern!r}, text, flags=re.M)\n"
        "out = {}\n"
        "for i, chunk in enumerate(chunks):\n"
        "    tag = f'.{i}' if len(chunks) > 1 else ''\n"
        "    for arch in archs:\n"
        "        try:\n"
        "            out[f'{tag}.{arch}.ptx'] = compile(chunk, arch=arch, filename=path).ptx\n"
        "        except TileError as e:\n"
        "            out[f'{tag}.{arch}.err'] = str(e)\n"
        "        except Exception as e:\n"
        "            out[f'{tag}.{arch}.err'] = f'EXCEPTION {type(e).__name__}: {e}'\n"
        "print(json.dumps(out))\n")
    r = subprocess.run([sys.executable, "-c", code, path, *ARCHS], capture_output=True, text=True, env=_env())
    if r.returncode:
        return {".crash": r.stdout + r.stderr}
    import json

    return json.loads(r.stdout)


def _run_lines(path: str) -> list[list[str]]:
    """The argument lists of the `tile-opt %s ...` RUN lines whose pipeline lowers (up to a pipe or >)."""
    out = []
    for line in open(path, encoding="utf-8"):
        m = re.match(r"\s*//\s*RUN:\s*(?:not\s+)?tile-opt\s+(.*)", line)
        if not m:
            continue
        cmd = re.split(r"\s[|>]|\s2>&1", m.group(1))[0]
        if LOWERING.search(cmd):
            out.append([a.replace("%s", path).replace("%root", ROOT) for a in shlex.split(cmd)])
    return out


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
    env["TILE_MLIR_CACHE"] = "0"
    return env


def _tile_opt(args: list[str]) -> str:
    """tile-opt `args` in a scratch directory that lit's %t names (so that no file lands in the tree)."""
    with tempfile.TemporaryDirectory() as tmp:
        args = [a.replace("%t", os.path.join(tmp, "t")) for a in args]
        r = subprocess.run([sys.executable, "-m", "tile_mlir.tools.tile_opt", *args], capture_output=True,
                           text=True, env=_env(), cwd=tmp)
    return f"{r.stdout}// stderr (exit {r.returncode})\n{r.stderr.replace(tmp, '%t-dir')}"


def _example(script: str, args: list[str]) -> str:
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", script), "--ptx", *args],
                       capture_output=True, text=True, env=_env(), cwd=ROOT)
    return r.stdout if r.returncode == 0 else f"// exit {r.returncode}\n{r.stdout}{r.stderr}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", help="directory to write (created; existing files are overwritten)")
    p.add_argument("--only", default="", help="only sources whose path contains this")
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args(argv)
    for sub in ("compile", "run", "examples"):
        os.makedirs(os.path.join(args.out, sub), exist_ok=True)

    def write(sub: str, name: str, text: str) -> None:
        with open(os.path.join(args.out, sub, name), "w", encoding="utf-8") as f:
            f.write(text)

    files = _mlir_files(args.only)
    jobs = []
    with ThreadPoolExecutor(args.jobs) as pool:
        for path in files:
            jobs.append(("compile", _name(path), pool.submit(_compile_file, path)))
            for n, run in enumerate(_run_lines(path)):
                jobs.append(("run", f"{_name(path)}.{n}.out", pool.submit(_tile_opt, run)))
        for script, configs in EXAMPLES.items():
            if args.only not in script:
                continue
            for n, cfg in enumerate(configs):
                jobs.append(("examples", f"{script}.{n}.ptx", pool.submit(_example, script, cfg)))
        count = 0
        for sub, name, fut in jobs:
            got = fut.result()
            if isinstance(got, dict):
                for suffix, text in got.items():
                    write(sub, name + suffix, text)
                    count += 1
            else:
                write(sub, name, got)
                count += 1
    examples = sum(len(c) for script, c in EXAMPLES.items() if args.only in script)
    print(f"wrote {count} files for {len(files)} .mlir files and {examples} example configurations to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
