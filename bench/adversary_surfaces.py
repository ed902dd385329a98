"""bench/adversary.py's surface campaign (--surf-cases): generated attacks on the surfaces issue #22
found open, each checked for a result, not only for a clean exit.

  window    a random tile.subview kernel (1-D or 2-D; f32, f16, i32, ui8; static offsets, aligned or
            not, or SSA offsets that are a scalar parameter times a constant; tile.copy, cp.async,
            st.global or TMA, some scopes wider than the block) compiled for sm_90a, run on tile-sim and
            compared with numpy. A compile error is a diagnostic; a run error or wrong bytes of a
            kernel the compiler accepted is `wrong-result` (tile-sim faults on misaligned vector
            accesses and on bytes past a buffer, as the GPU would).
  manifest  a saved TMA artifact (two tensor maps) whose manifest, PTX or cubin is edited (records,
            parameters, launch shape, names, digests, JSON shape and size) and loaded: ArgumentError is a
            diagnostic; an artifact that loads must then produce the original's output on tile-sim.
  cache     a compile-cache directory holding a hostile entry for the kernel's key (FIFO, symlinks to a
            FIFO, /dev/zero or elsewhere, a directory, a 65 MiB sparse file, garbage, another key's or a
            re-digested tampered entry) or of a mode / kind the trust rules refuse; jit() must finish
            (the parent's timeout catches a hang) with the right output.

A case is a JSON spec drawn from (seed, index) (make_spec); the child (--surf-child) runs it and exits
0 (result checked), 1 with an `error:` line (diagnostic) or 3 with a `WRONG RESULT:` line.
"""
from __future__ import annotations

import json
import os
import random
import stat
import sys

KINDS = ("window", "manifest", "cache")
KIND_WEIGHTS = (6, 3, 2)
WRONG = "WRONG RESULT:"
DTYPES = {"f32": ("float32", 4), "f16": ("float16", 2), "i32": ("int32", 4), "ui8": ("uint8", 1)}


# ----------------------------------------------------------------------------- specs


def make_spec(seed: int, index: int) -> dict:
    rng = random.Random(f"surf:{seed}:{index}")
    kind = rng.choices(KINDS, KIND_WEIGHTS)[0]
    if kind == "window":
        return {"kind": kind, **_window_spec(rng)}
    if kind == "manifest":
        return {"kind": kind, "edits": [_manifest_edit(rng) for _ in range(rng.choice((1, 1, 2)))]}
    return {"kind": kind, "entry": rng.choice(CACHE_ENTRIES)}


def _window_spec(rng) -> dict:
    elem = rng.choice(sorted(DTYPES))
    rank = rng.choice((1, 2, 2))
    shape = [rng.randint(1, 12), rng.randint(1, 80)][2 - rank:]
    op = rng.choice(("copy", "copy", "cp_async", "st_global", "tma"))
    sizes = [rng.randint(1, d) for d in shape]
    if op == "tma" or rng.random() < 0.3:  # sizes that can move as vectors
        eb = DTYPES[elem][1]
        sizes[-1] = max(1, min(shape[-1], (16 // eb) * rng.randint(1, 4)))

    def offsets():
        out = []
        for d, n in zip(shape, sizes):
            room = d - n
            if rng.random() < 0.35:  # an SSA offset: scalar parameter x constant, inside the source
                mult = rng.choice((1, 1, 2, 3, 4, 8, 16))
                out.append({"mult": mult, "value": rng.randint(0, room // mult) if room >= 0 else 0})
            else:
                out.append(rng.randint(0, room))
        return out

    src, dst = offsets(), offsets()
    if rng.random() < 0.05:  # a static window past the edge (the verifier's region-in-bounds)
        src[-1] = shape[-1] - sizes[-1] + 1
    scope = rng.choice(("cta", "cta", "cta", "warp", "warpgroup", "thread"))
    block = rng.choice((32, 64, 128, 128, 16))
    if op == "tma":
        scope = "thread"
    return {"elem": elem, "shape": shape, "sizes": sizes, "src": src, "dst": dst, "op": op, "scope": scope,
            "block": block}


MAP_FIELDS = {"swizzle": ["none", "32b", "64b", "128b", "256b", 7], "box_dim": [[8], [4, 32], [8, 16], [0, 8], [257, 1]],
              "global_dim": [[64, 16], [32, 16], [64, 8], [2 ** 40, 1], [-1, 16]],
              "global_strides": [[256], [128], [0], [2 ** 41]], "element_strides": [[1, 1], [2, 1], [1, 9]],
              "data_type": ["uint8", "float16", "float64", "int8", ""], "buffer": ["A", "B", "n", "grid", "zz"],
              "interleave": ["none", "32b"], "l2_promotion": ["none", "256b", "1024b"],
              "oob_fill": ["none", "nan_request_zero_fma", "x"]}
TOP_FIELDS = {"block": [[64, 1, 1], [32, 2, 1], [0, 1, 1], [2 ** 31, 1, 1], [32, 1], "32"],
              "grid": [[1, 1, 1], [2, 1, 1], [4, 2, 1], [2, 2, 0]], "cluster": [[2, 1, 1], [1, 1, 1]],
              "dynamic_smem": [1024, -1, 2 ** 40, 1.5, True], "kernel_name": ["../x", "a/b", "", 1, "window_tma"],
              "arch": ["sm_100a", "sm_90", "", "sm_x"], "key": [None, 5]}
PARAM_EDITS = ("rename", "swap", "dtype", "shape", "kind", "bits", "drop", "dup")
FILE_EDITS = ("ptx-append", "ptx-truncate", "ptx-empty", "cubin-garbage", "json-nonutf8", "json-deep",
              "json-huge-int", "json-list", "json-trailing")
DIGEST_EDITS = ("drop", "one", "type", "extra")


def _manifest_edit(rng) -> list:
    area = rng.choice(("map", "map", "maps", "top", "param", "file", "digest", "outputs"))
    if area == "map":
        name = rng.choice(sorted(MAP_FIELDS))
        return [area, rng.randint(0, 1), name, rng.choice(MAP_FIELDS[name])]
    if area == "maps":
        return [area, rng.choice(("swap", "drop", "dup", "clear"))]
    if area == "top":
        name = rng.choice(sorted(TOP_FIELDS))
        return [area, name, rng.choice(TOP_FIELDS[name])]
    if area == "param":
        return [area, rng.randint(0, 2), rng.choice(PARAM_EDITS)]
    if area == "file":
        return [area, rng.choice(FILE_EDITS)]
    if area == "digest":
        return [area, rng.choice(DIGEST_EDITS)]
    return [area, rng.choice(([], ["A"], ["B", "zz"], "B"))]


CACHE_ENTRIES = ("fifo", "symlink-fifo", "symlink-devzero", "symlink-valid", "directory", "sparse-65MiB",
                 "garbage", "non-utf8", "truncated", "other-key", "retagged", "tampered-redigested",
                 "empty", "dir-0777", "dir-0770", "dir-symlink", "dir-is-file", "dir-missing")


# ----------------------------------------------------------------------------- kernels


def _layout(sizes, strides) -> str:
    tup = lambda xs: "(" + ", ".join(map(str, xs)) + ("," if len(xs) == 1 else "") + ")"  # noqa: E731
    return f'"S[{tup(sizes)} : {tup(strides)}]"'


def window_kernel(spec) -> tuple[str, list]:
    """The spec's kernel text and its scalar parameters' values (after A and B)."""
    elem, shape, sizes = spec["elem"], spec["shape"], spec["sizes"]
    dims = "x".join(map(str, shape))
    g = f"!tile.buffer<global, {dims}x{elem}>"
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    w = f"!tile.buffer<global, {'x'.join(map(str, sizes))}x{elem}, {_layout(sizes, strides)}>"
    s = f"!tile.buffer<shared, {'x'.join(map(str, sizes))}x{elem}, align 128>"
    scalars, lines, values = [], [], []

    def window(name, src_name, offs):
        static, operands, types = [], [], []
        for o in offs:
            if isinstance(o, dict):
                k = len(scalars)
                scalars.append(f"%n{k}: i32")
                values.append(o["value"])
                lines.append(f"  %m{k} = arith.constant {o['mult']} : i32")
                lines.append(f"  %o{k} = arith.muli %n{k}, %m{k} : i32")
                static.append(-1)
                operands.append(f"%o{k}")
                types.append("i32")
            else:
                static.append(o)
        lines.append(f'  %{name} = "tile.subview"(%{src_name}{"".join(", " + x for x in operands)}) '
                     f'{{static_offsets = array<i64: {", ".join(map(str, static))}>, sizes = array<i64: '
                     f'{", ".join(map(str, sizes))}>}} : ({g}{"".join(", " + t for t in types)}) -> {w}')

    op, scope = spec["op"], spec["scope"]
    body = []
    if op == "tma":
        body += [f'  %ma = "tile.tensor_map"(%A) {{box = array<i64: {", ".join(map(str, sizes))}>}} : ({g}) -> !tile.tensormap',
                 f'  %mb = "tile.tensor_map"(%B) {{box = array<i64: {", ".join(map(str, sizes))}>}} : ({g}) -> !tile.tensormap']
    body += [f'  %s = "tile.alloc_shared"() : () -> {s}']
    window("wa", "A", spec["src"])
    window("wb", "B", spec["dst"])
    body += lines
    sc = f'{{scope = "{scope}"}}'
    nscope = {"thread": 1, "warp": 32, "warpgroup": 128}.get(scope)
    guard_open, guard_close = [], []
    if nscope and op != "tma":  # only the scope's first threads copy: two scopes would race on one tile
        body += ['  %gt = "tile.thread_id"() : () -> i32', f'  %gn = arith.constant {nscope} : i32',
                 '  %g = arith.cmpi ult, %gt, %gn : i32']
        guard_open, guard_close = ["  scf.if %g {"], ["  }"]
    if op == "copy":
        body += [*guard_open, f'  "tile.copy"(%s, %wa) {sc} : ({s}, {w}) -> ()', *guard_close,
                 '  "tile.barrier"() : () -> ()',
                 *guard_open, f'  "tile.copy"(%wb, %s) {sc} : ({w}, {s}) -> ()', *guard_close]
    elif op in ("cp_async", "st_global"):
        first = (f'  "tile.copy_async"(%s, %wa) {sc} : ({s}, {w}) -> ()' if op == "cp_async"
                 else f'  "tile.copy"(%s, %wa) {sc} : ({s}, {w}) -> ()')
        body += [*guard_open, first, '  "tile.async_wait"() : () -> ()' if op == "cp_async" else "", *guard_close,
                 '  "tile.barrier"() : () -> ()', *guard_open,
                 f'  "tile.copy_async"(%wb, %s) {{scope = "{scope}", dispatch = "shared->global"}} : ({w}, {s}) -> ()',
                 *guard_close]
    else:
        nbytes = DTYPES[spec["elem"]][1]
        for n in sizes:
            nbytes *= n
        bar = "!tile.buffer<shared, 1xi64>"
        body += [f'  %bar = "tile.alloc_shared"() : () -> {bar}', '  %tid = "tile.thread_id"() : () -> i32',
                 '  %c0 = arith.constant 0 : i32', '  %t0 = arith.cmpi eq, %tid, %c0 : i32', '  scf.if %t0 {',
                 f'    "tile.mbarrier.init"(%bar) {{count = 1}} : ({bar}) -> ()',
                 '    "tile.fence"() {kind = "mbarrier_init"} : () -> ()',
                 f'    "tile.mbarrier.arrive_expect_tx"(%bar) {{bytes = {nbytes}}} : ({bar}) -> ()',
                 f'    "tile.copy_async"(%s, %wa, %bar) : ({s}, {w}, {bar}) -> ()',
                 f'    "tile.mbarrier.wait"(%bar) {{phase = 0}} : ({bar}) -> ()',
                 '    "tile.fence"() {kind = "proxy_async"} : () -> ()',
                 f'    "tile.copy_async"(%wb, %s) : ({w}, {s}) -> ()',
                 '    "tile.bulk_wait"() {pending = 0} : () -> ()', '  }']
    args = ", ".join([f"%A: {g}", f"%B: {g}", *scalars])
    text = ('"tile.kernel"() ({\n^bb0(' + args + '):\n' + "\n".join(l for l in body if l) +
            '\n  "tile.return"() : () -> ()\n}) {sym_name = "window", block = array<i32: ' +
            f'{spec["block"]}, 1, 1>}} : () -> ()\n')
    return text, values


def _value(o) -> int:
    return o["value"] * o["mult"] if isinstance(o, dict) else o


def window_expected(spec, a):
    import numpy as np

    b = np.zeros_like(a)
    src = tuple(slice(_value(o), _value(o) + n) for o, n in zip(spec["src"], spec["sizes"]))
    dst = tuple(slice(_value(o), _value(o) + n) for o, n in zip(spec["dst"], spec["sizes"]))
    b[dst] = a[src]
    return b


def _inputs(spec):
    import numpy as np

    dtype = np.dtype(DTYPES[spec["elem"]][0])
    n = 1
    for d in spec["shape"]:
        n *= d
    a = (np.arange(n) % (251 if dtype.itemsize == 1 else 30011) + 1).astype(dtype).reshape(spec["shape"])
    return a, np.zeros_like(a)


# TMA kernel of the manifest and cache cases: B = A through two windows and two tensor maps, 2 x 2 CTAs
FIXED = {"elem": "f32", "shape": [16, 64], "sizes": [8, 32], "src": [{"mult": 8, "value": 1}, {"mult": 32, "value": 1}],
         "dst": [{"mult": 8, "value": 1}, {"mult": 32, "value": 1}], "op": "tma", "scope": "thread", "block": 32}


# ----------------------------------------------------------------------------- the child


class Wrong(Exception):
    """A kernel the compiler or loader accepted gave wrong bytes or failed to run."""


def _diagnostic(e) -> int:
    print(f"error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:400], file=sys.stderr)
    return 1


def _run(kernel, spec, values):
    """Run `kernel` (a jit kernel) on A = _inputs(spec): B, compared with window_expected."""
    import numpy as np

    a, b = _inputs(spec)
    try:
        kernel(a, b, *values)
    except Exception as e:  # noqa: BLE001 - an accepted kernel must run
        raise Wrong(f"an accepted kernel failed on tile-sim: {type(e).__name__}: {str(e)[:300]}") from None
    want = window_expected(spec, a)
    if not np.array_equal(b, want):
        bad = int(np.count_nonzero(b != want))
        raise Wrong(f"{bad} of {b.size} elements differ from numpy")


def run_window(spec) -> int:
    import tile_mlir
    from tile_mlir import ArgumentError, TileError

    text, values = window_kernel(spec)
    try:
        art = tile_mlir.compile(text, arch="sm_90a")
    except (TileError, ArgumentError) as e:
        return _diagnostic(e)
    _run(tile_mlir.jit(art, backend="sim"), spec, values)
    return 0


def _edit_manifest(edit, m, base):
    area = edit[0]
    maps = m.get("tensor_maps", [])
    if area == "map" and maps:
        maps[edit[1] % len(maps)][edit[2]] = edit[3]
    elif area == "maps":
        if edit[1] == "swap" and len(maps) > 1:
            maps[0], maps[1] = maps[1], maps[0]
        elif edit[1] == "drop" and maps:
            maps.pop()
        elif edit[1] == "dup" and maps:
            maps.append(dict(maps[0]))
        elif edit[1] == "clear":
            m["tensor_maps"] = []
    elif area == "top":
        if edit[2] is None:
            m.pop(edit[1], None)
        else:
            m[edit[1]] = edit[2]
    elif area == "param":
        ps = m["params"]
        p = ps[edit[1] % len(ps)]
        what = edit[2]
        if what == "rename":
            p["name"] = "zz"
        elif what == "swap":
            ps[0], ps[1] = ps[1], ps[0]
        elif what == "dtype":
            p["dtype"] = {"float32": "uint32", "int32": "float32"}.get(p["dtype"], "float32")
        elif what == "shape":
            p["shape"] = [x * 2 for x in p["shape"]] or [2]
        elif what == "kind":
            p["kind"] = "scalar" if p["kind"] == "buffer" else "buffer"
        elif what == "bits":
            p["bits"] = 4
        elif what == "drop":
            ps.remove(p)
        elif what == "dup":
            ps.append(dict(p))
    elif area == "digest":
        d = m.get("digests")
        if edit[1] == "drop":
            m.pop("digests", None)
        elif edit[1] == "one" and isinstance(d, dict):
            d["tensor_maps"] = "0" * 32
        elif edit[1] == "type":
            m["digests"] = ["ptx"]
        elif edit[1] == "extra" and isinstance(d, dict):
            d["more"] = "x"
    elif area == "outputs":
        m.setdefault("meta", {})["outputs"] = edit[1]


def _write_file_edit(edit, base, m) -> bool:
    """File-level edits; True when the manifest JSON was written here."""
    what = edit[1]
    if what.startswith("ptx"):
        with open(base + ".ptx", "r+") as f:
            text = f.read()
            f.seek(0)
            f.write({"ptx-append": text + "\n// x\n", "ptx-truncate": text[: len(text) // 2], "ptx-empty": ""}[what])
            f.truncate()
        return False
    if what == "cubin-garbage":
        with open(base + ".cubin", "wb") as f:
            f.write(os.urandom(64))
        return False
    data = json.dumps(m).encode()
    data = {"json-nonutf8": data.replace(b'"window"', b'"win\xffdow"', 1), "json-deep": b"[" * 100_000 + b"]" * 100_000,
            "json-huge-int": data.replace(b'"dynamic_smem": 0', b'"dynamic_smem": ' + b"9" * 5000, 1),
            "json-list": b"[1, 2]", "json-trailing": data + b" {"}[what]
    with open(base + ".json", "wb") as f:
        f.write(data)
    return True


def _fixed_artifact(tmp):
    import tile_mlir

    text, values = window_kernel(FIXED)
    art = tile_mlir.compile(text, arch="sm_90a")
    return art, values, art.save(tmp)


def run_manifest(spec, tmp) -> int:
    import tile_mlir
    from tile_mlir import ArgumentError, TileError
    from tile_mlir.artifact import Artifact

    _, values, path = _fixed_artifact(tmp)
    base = path[: -len(".json")]
    m = json.load(open(path))
    written = False
    for edit in spec["edits"]:
        if edit[0] == "file":
            written |= _write_file_edit(edit, base, m)
        else:
            _edit_manifest(edit, m, base)
    if not written:
        with open(path, "w") as f:
            json.dump(m, f)
    try:
        art = Artifact.load(path)
    except (TileError, ArgumentError, TypeError) as e:  # (ArgumentTypeError is a TypeError)
        if type(e) is TypeError:
            raise
        return _diagnostic(e)
    try:
        kernel = tile_mlir.jit(art, backend="sim")
    except (TileError, ArgumentError) as e:
        raise Wrong(f"a loaded artifact was refused by jit: {e}") from None
    _run(kernel, FIXED, values)
    return 0


def _prepare_cache(entry, tmp) -> str:
    """A cache directory holding `entry` for FIXED's key; its path."""
    import base64
    import hashlib

    from tile_mlir.runtime import cache
    from tile_mlir.frontend.source import read_source

    text, _ = window_kernel(FIXED)
    d = os.path.join(tmp, "cache")
    os.makedirs(d, mode=0o700)
    key = cache.disk_key(read_source(text).ir_text, "sm_90a", {})
    path = os.path.join(d, key + ".json")
    good_dir = os.path.join(tmp, "good")
    os.environ[cache.DIR_ENV] = good_dir
    cache.compile_cached(text, arch="sm_90a")  # a valid entry, in another directory
    cache.clear()
    good = os.path.join(good_dir, key + ".json")
    entry_bytes = open(good, "rb").read()
    if entry == "fifo":
        os.mkfifo(path)
    elif entry == "symlink-fifo":
        os.mkfifo(os.path.join(tmp, "fifo"))
        os.symlink(os.path.join(tmp, "fifo"), path)
    elif entry == "symlink-devzero":
        os.symlink("/dev/zero", path)
    elif entry == "symlink-valid":
        os.symlink(good, path)
    elif entry == "directory":
        os.mkdir(path)
    elif entry == "sparse-65MiB":
        with open(path, "wb") as f:
            f.truncate(65 << 20)
    elif entry in ("garbage", "non-utf8", "truncated", "empty"):
        with open(path, "wb") as f:
            f.write({"garbage": os.urandom(4096), "non-utf8": b'{"key": "\xff\xfe"}', "empty": b"",
                     "truncated": entry_bytes[: len(entry_bytes) // 2]}[entry])
    elif entry in ("other-key", "retagged", "tampered-redigested"):
        e = json.loads(entry_bytes)
        if entry == "other-key":
            e["key"] = "0" * 64
        else:
            mf = e["manifest"]
            if entry == "tampered-redigested":  # the inner digests now disagree; the outer one is recomputed
                mf["tensor_maps"][0]["swizzle"] = "128b"
            mf["tensor_maps"].reverse()
            h = hashlib.sha256(json.dumps(mf, sort_keys=True).encode())
            cubin = base64.b64decode(e["cubin"])
            h.update(b"\0" + e["ptx"].encode() + b"\0")
            h.update(cubin)
            e["digest"] = h.hexdigest()
        with open(path, "w") as f:
            json.dump(e, f)
    elif entry in ("dir-0777", "dir-0770"):
        with open(path, "wb") as f:
            f.write(entry_bytes)
        os.chmod(d, 0o777 if entry == "dir-0777" else 0o770)
    elif entry == "dir-symlink":
        os.rename(d, d + ".real")
        os.symlink(d + ".real", d)
    elif entry == "dir-is-file":
        os.rmdir(d)
        with open(d, "wb") as f:
            f.write(b"x")
    elif entry == "dir-missing":
        os.rmdir(d)
        d = os.path.join(d, "a", "b")
    os.chmod(tmp, os.stat(tmp).st_mode & ~(stat.S_IWGRP | stat.S_IWOTH))
    return d


def run_cache(spec, tmp) -> int:
    import tile_mlir
    from tile_mlir.runtime import cache

    d = _prepare_cache(spec["entry"], tmp)
    os.environ[cache.DIR_ENV] = d
    text, values = window_kernel(FIXED)
    _run(tile_mlir.jit(text, arch="sm_90a", backend="sim"), FIXED, values)
    return 0


def child(spec_path: str) -> int:
    """The surface campaign's child; start-up (imports) ends with one byte on the parent's ready pipe."""
    import tempfile

    import numpy  # noqa: F401

    import tile_mlir  # noqa: F401
    import tile_mlir.driver.compiler  # noqa: F401

    spec = json.load(open(spec_path))
    fd = os.environ.get("ADVERSARY_READY_FD")
    if fd:
        os.write(int(fd), b"r")
        os.close(int(fd))
    with tempfile.TemporaryDirectory(prefix="surf-") as tmp:
        try:
            if spec["kind"] == "window":
                return run_window(spec)
            if spec["kind"] == "manifest":
                return run_manifest(spec, tmp)
            return run_cache(spec, tmp)
        except Wrong as e:
            print(f"{WRONG} {e}", file=sys.stderr)
            return 3
