"""Regenerate the foreign corpus: NVIDIA's CuTe DSL example kernels, compiled here, kept as shipped.

    .venv/bin/python bench/foreign/make_corpus.py --cutlass /path/to/NVIDIA/cutlass [--size small|large]

``--cutlass`` is a checkout (or bare git directory) of github.com/NVIDIA/cutlass; the kernels are
its ``examples/python/CuTeDSL/cute/{blackwell,hopper}`` classes, imported unchanged (this script is
only the driver: it picks a configuration, builds fake static tensors and compiles with
``CUTE_DSL_KEEP=ptx,ir`` and no GPU). ``small`` writes test/fixtures/foreign (make test), ``large``
bench/foreign/corpus (bench/foreign/run_corpus.py).

Each kernel ``<name>.ptx`` gets ``<name>.json``, its launch contract read from what the DSL compiled:

* ``params``: one per ``.param`` of the entry: ``bytes`` (a by-value struct, e.g. the tiled MMA's
  runtime fields or a FastDivmod, its bytes as the host code builds them), or ``tensor_map``
  naming its buffer and every
  argument of the ``cuTensorMapEncodeTiled`` call that makes the same map: data type, rank, global
  dims and strides (bytes), box, element strides, interleave, swizzle, L2 promotion, OOB fill;
* ``grid``, ``block``, ``cluster`` (the kernel's ``cutlass_launch_facts``), ``dynamic_smem``;
* ``buffers``: name, dtype, shape of each global tensor, ``inputs`` / ``outputs``;
* ``descriptor_words``: the 16 64-bit words of each map as the DSL's host code encodes them
  inline (the address word is null): bench/foreign/device_run.py compares them with what the
  driver's cuTensorMapEncodeTiled makes of the recorded arguments.

``<name>.npz`` holds the inputs (small integers, so fp32 accumulation is exact) and the reference
output computed with numpy from the logical coordinates, independently of any kernel.
"""
from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blockscaled  # noqa: E402
import blockscaled_tensors  # noqa: E402
import cute_cases  # noqa: E402
import cute_extra_cases  # noqa: E402
import host_eval  # noqa: E402
import seq_cases  # noqa: E402
import tma_layouts  # noqa: E402
import tutorial_nvfp4  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DUMP = tempfile.mkdtemp(prefix="foreign-corpus-")
#: the DSL reads its target at import: one process per arch (main re-runs itself with --arch)
ARCH = sys.argv[sys.argv.index("--arch") + 1] if "--arch" in sys.argv else None
os.environ.update(CUTE_DSL_KEEP="ptx,ir", CUTE_DSL_DUMP_DIR=DUMP, CUTE_DSL_ARCH=ARCH or "sm_100a")

EXAMPLES = "examples/python/CuTeDSL/cute"
REV = ["HEAD"]  # --rev
TMA_TYPES = {"F16_RN": "float16", "BF16_RN": "bfloat16", "F32_RN": "float32", "TF32_RN": "tfloat32",
             "U8": "uint8", "U16": "uint16", "U32": "uint32",
             "U4": "16u4_align8b"}  # 4-bit elements packed 16 to 8 bytes (int4, e2m1)
SWIZZLE_BITS = {0: "none", 1: "32b", 2: "64b", 3: "128b"}


def load_example(cutlass_dir, rel):
    """Import one example file of the cutlass checkout at ``--rev`` (git archive of the examples
    tree, so a bare mirror works and the examples' imports of each other resolve)."""
    git = ["git", "-C", cutlass_dir]
    commit = subprocess.run(git + ["rev-parse", REV[0]], check=True, capture_output=True,
                            text=True).stdout.strip()
    tree = os.path.join(DUMP, "src")
    if not os.path.isdir(tree):
        os.makedirs(tree)
        tar = subprocess.run(git + ["archive", commit, "examples/python/CuTeDSL"], check=True,
                             capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tree], input=tar, check=True)
        for sub in ("examples/python/CuTeDSL/cute", "examples/python/CuTeDSL"):
            sys.path.insert(0, os.path.join(tree, sub))
    path = os.path.join(tree, EXAMPLES, rel)
    if os.path.dirname(path) not in sys.path:  # as Python runs the script: its siblings import
        sys.path.insert(0, os.path.dirname(path))
    spec = importlib.util.spec_from_file_location(os.path.basename(rel)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, commit


# ----------------------------------------------------------------------------- reading the IR
def _layout(text):
    """"(256,256,1):(256,1,65536)" -> (shape, stride) of a flat static layout (a run-time one:
    tma_layouts.py)."""
    m = re.fullmatch(r"\(([\d,]+)\):\(([\d,]+)\)", text.replace("(", "").replace(")", "")
                     .replace(":", "):(").join("()") if text.count("(") > 2 else text)
    assert m, f"layout {text!r}: not a flat static layout"
    return tuple(map(int, m.group(1).split(","))), tuple(map(int, m.group(2).split(",")))


def launch_facts(clean, grid=True):
    """(grid, block, cluster) the kernel's launch facts state (grid None: a run-time one)."""
    m = re.search(r"cutlass_launch_facts = \{([^}]*)\}", clean)
    facts = {k: [int(v) for v in vals.split(",")] for k, vals in
             re.findall(r"exact_(\w+)_dim = array<i64: ([\d, ]+)>", m.group(1))}
    return (facts["grid"] if grid else None, facts["block"],
            facts.get("cluster", [1, 1, 1]))  # no cluster dims: not a cluster launch


def clear_dump():
    """The DSL names its dumps after the class: one case at a time."""
    for f in os.listdir(DUMP):
        if f != "src":
            os.remove(os.path.join(DUMP, f))


def read_dump():
    """(PTX, clean IR) of the case just compiled."""
    new = os.listdir(DUMP)
    ptx = open(os.path.join(DUMP, next(f for f in new if f.endswith(".ptx")))).read()
    clean = open(os.path.join(DUMP, next(f for f in new if f.endswith("_clean.mlir")))).read()
    return ptx, clean


def tma_atoms(clean, host_args):
    """Every make_non_exec_tiled_tma_{load,store,reduce} of the host function, in kernel-parameter order:
    (buffer name, tma_format, box basis, swizzle code)."""
    aliases = dict(re.findall(r"^(!memref_\w+) = !cute\.memref<[^\"]*\"([^\"]+)\">", clean, re.M))
    out, fn = [], clean
    for line in clean.splitlines():
        if line.lstrip().startswith("func.func @"):  # SSA names repeat per function
            fn = clean[clean.index(line):]
        m = re.search(r"make_non_exec_tiled_tma_(load|store|reduce)\((%\w+),.*? : \((!memref_\w+), "
                      r"!cute\.(?:composed_layout<\"(?:S<(\d),(\d),(\d)> o )?|layout<\")", line)
        if not m:
            continue
        kind, arg, memref, b, mbase, _ = m.groups()
        gbasis, fmt = re.search(r"-> \(!cute_nvgpu[^\n]*?tma_gbasis = <\"([^\"]+)\">, "
                                r"tma_format = (\w+)>", line).groups()
        mc = re.search(r"num_multicast = (\d+)", line)
        text = aliases[memref]
        out.append(dict(kind=kind, arg=_root_arg(fn, arg, host_args),
                        layout=_layout(text) if "?" not in text else None, layout_text=text,
                        swizzle_b=int(b) if b else 0,
                        swizzle_m=int(mbase) if mbase else 4, gbasis=gbasis, format=fmt,
                        multicast=int(mc.group(1)) if mc else 1))
    return out


def _root_arg(clean, name, host_args, depth=8):
    """The host argument a tensor is a view of (``%view = cute.make_view(%iter, ..)``, ``%iter =
    cute.get_iter(%arg1)``): the first operand, followed back to an argument (``clean``: the
    text of the function from its start)."""
    while name not in host_args and depth:
        m = re.search(rf"^\s*{re.escape(name)}(?:, %\w+)* = [\w.]+\((%\w+)", clean, re.M)
        if not m:
            return None
        name, depth = m.group(1), depth - 1
    return host_args.index(name) if name in host_args else None


def host_descriptors(lowered, env=None):
    """The 128-byte maps the host function encodes inline: per 16 x i64 alloca of alignment 64,
    the constant stored to each word, or its value in ``env`` (host_eval's environment of a
    run-time shape); None for one not known (the address)."""
    lowered = host_function(lowered)
    consts = dict(re.findall(r"(%\d+) = llvm\.mlir\.constant\((-?\d+) : i64\) : i64", lowered))
    consts.update({k: v for k, v in (env or {}).items() if isinstance(v, int) and k not in consts})
    descs, geps = [], {}
    for line in lowered.splitlines():
        if m := re.search(r"(%\d+) = llvm\.alloca %\d+ x i64 \{alignment = 64", line):
            descs.append((m.group(1), [0] * 16))
        elif m := re.search(r"(%\d+) = llvm\.getelementptr (%\d+)\[0, (\d+)\].*array<16 x i64>", line):
            geps[m.group(1)] = (m.group(2), int(m.group(3)))
        elif m := re.search(r"llvm\.store (%\d+), (%\d+) : i64", line):
            if m.group(2) in geps:
                base, i = geps[m.group(2)]
                for name, words in descs:
                    if name == base:
                        v = consts.get(m.group(1))
                        words[i] = None if v is None else int(v) & (2**64 - 1)
    return [w for _, w in descs]


# the by-value kernel arguments the host builds (the tiled MMA's runtime fields, FastDivmod
# structs): evaluated by running the lowered host function's arithmetic (host_eval.py)
def _split(body):
    out, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch in "<(["
        depth -= ch in ">)]"
        cur += ch
    return out + ([cur.strip()] if cur.strip() else [])


def _layout_of(t):
    """(size, align, [(offset, field type)]) of an LLVM type with its natural alignment."""
    t = t.strip().removeprefix("!llvm.")
    if re.fullmatch(r"ptr(<\d+>)?", t):
        return 8, 8, None
    if t in FLOAT_BYTES:
        return FLOAT_BYTES[t], FLOAT_BYTES[t], None
    if m := re.fullmatch(r"i(\d+)", t):
        n = max(1, int(m.group(1)) // 8)
        return n, n, None
    if m := re.fullmatch(r"vector<(\d+)xi(\d+)>", t):
        n = int(m.group(1)) * int(m.group(2)) // 8
        return n, n, None
    if m := re.fullmatch(r"array<(\d+) x (.+)>", t):
        sz, al, _ = _layout_of(m.group(2))
        return sz * int(m.group(1)), al, [(i * sz, m.group(2)) for i in range(int(m.group(1)))]
    m = re.fullmatch(r"struct<\((.*)\)>", t)
    off, al, fields = 0, 1, []
    for ft in _split(m.group(1)):
        fs, fa, _ = _layout_of(ft)
        off = -(-off // fa) * fa
        fields.append((off, ft))
        off += fs
        al = max(al, fa)
    return -(-off // al) * al, al, fields


FLOAT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8}


def _bytes(t, v):
    size, _, fields = _layout_of(t)
    out = bytearray(size)
    if fields is None:
        if isinstance(v, list):  # vector
            n = size // len(v)
            for i, e in enumerate(v):
                out[i * n:(i + 1) * n] = (int(e) & ((1 << 8 * n) - 1)).to_bytes(n, "little")
        else:
            out[:] = (int(v or 0) & ((1 << 8 * size) - 1)).to_bytes(size, "little")
        return bytes(out)
    for (off, ft), e in zip(fields, v or [None] * len(fields)):
        b = _bytes(ft, e)
        out[off:off + len(b)] = b
    return bytes(out)


def _value(t):
    _, _, fields = _layout_of(t)
    return None if fields is None else [_value(ft) for _, ft in fields]


#: the name of the host function that launches the kernel (``cutlass___call__`` for a class's
#: ``__call__``, the function's own name for a ``@cute.jit`` function): set by host_function
HOST = ["cutlass___call__"]


def host_function(lowered):
    """The text of the host launch function alone (SSA names repeat across functions): the one
    that calls ``_cudaLaunchKernelEx``."""
    call = lowered.index("llvm.call @_cudaLaunchKernelEx(")
    start = lowered.rfind("\n  llvm.func @", 0, call) + 1  # 0: the text is that function
    HOST[0] = re.match(r"  llvm\.func @(\w+)", lowered[start:]).group(1)
    end = lowered.find("\n  llvm.func ", start + 1)
    return lowered[start:end if end > 0 else len(lowered)]


def host_arguments(lowered, args=None):
    """Per kernel argument of the host's cudaLaunchKernelEx: bytes of a by-value struct, or None for
    a tensor map (a 16 x i64 descriptor); ``args`` binds the host's run-time integer arguments."""
    lowered = host_function(lowered)
    vals = host_eval.evaluate(lowered, _value, args=args)
    call = re.search(r"llvm\.call @_cudaLaunchKernelEx\(%\d+, %\d+, (%\d+)\)", lowered).group(1)
    out = []
    for m in re.finditer(rf"(%\d+) = llvm\.getelementptr {call}\[(%\d+)\]", lowered):
        slot = m.group(1)
        ptr = re.search(rf"llvm\.store (%\d+), {slot} : !llvm\.ptr, !llvm\.ptr", lowered).group(1)
        typ = re.search(rf"{ptr} = llvm\.alloca %\d+ x (!llvm\.struct<[^\n]*?\)>|i\d+)"
                        rf"( \{{alignment| : )", lowered).group(1)
        if "array<16 x i64>" in typ:
            out.append(None)
            continue
        src = re.search(rf"llvm\.store (%\w+), {ptr} : ", lowered).group(1)
        out.append(_bytes(typ, vals.get(src)))
    return out


def dynamic_smem(lowered):
    """The launch config's sharedMemBytes: field 2 of the (grid, block, i64, ...) struct the host
    code fills before cudaLaunchKernelEx."""
    lowered = host_function(lowered)
    consts = dict(re.findall(r"(%\d+) = llvm\.mlir\.constant\((-?\d+) : i64\) : i64", lowered))
    gep = re.search(r"(%\d+) = llvm\.getelementptr %\d+\[0, 2\] : \(!llvm\.ptr\) -> !llvm\.ptr, "
                    r"!llvm\.struct<\(array<3 x i32>, array<3 x i32>, i64", lowered).group(1)
    return int(consts[re.search(rf"llvm\.store (%\d+), {gep} : i64", lowered).group(1)])


def tensor_map_args(atom, buf, concrete=None):
    """The cuTensorMapEncodeTiled arguments of a CuTe TMA atom: its basis ``(box...):(1@mode...)``
    names, innermost first, which mode of the global tensor each box dimension walks (a nested
    mode by its path, ``1@0@0@2``); a run-time layout is the case's ``concrete`` statement of it,
    checked against the IR (tma_layouts.py)."""
    assert atom["layout"] or concrete, (f"{buf['name']}: a run-time layout "
                                        f"{atom['layout_text']}: the case must state it")
    # a static layout may nest (a scale tensor broadcast over K granules: ((1,256),(256,1),1)):
    # read as a tree, as the basis's paths (1@1@0) name its modes
    layout = (tma_layouts.parse_layout(atom["layout_text"]) if atom["layout"]
              else tma_layouts.resolve(atom["layout_text"], concrete))
    box, dims, strides = tma_layouts.map_dims(layout, atom["gbasis"])
    # a multicast atom's basis is the whole tile; each of its num_multicast CTAs loads a slice of
    # the outermost box dimension and multicasts it, so the map's box is that slice (the DSL's
    # inline-encoded map of fp16_gemm_5's A: (64, 64) of the (64, 128) basis)
    n = atom.get("multicast", 1)
    assert box[-1] % n == 0, (atom, "the multicast count divides the outermost box dimension")
    box[-1] //= n
    assert strides[0] == 1, (atom, "dimension 0 must be contiguous")
    # bits per element: the buffer's, or 4 for a packed 4-bit format (two per byte)
    bits = 4 if atom["format"] == "U4" else 8 * np.dtype(buf["dtype"]).itemsize
    strides = [st * bits // 8 for st in strides]
    return dict(data_type=TMA_TYPES[atom["format"]], rank=len(box), global_dim=dims,
                global_strides=strides[1:], box_dim=list(box), element_strides=[1] * len(box),
                interleave="none", swizzle=SWIZZLE_BITS[atom["swizzle_b"]],
                l2_promotion="none", oob_fill="none")


# ----------------------------------------------------------------------------- the kernels
def ints(rng, shape, lo=-2, hi=2):
    return rng.integers(lo, hi + 1, shape)


def gemm_case(name, make, M, N, K, ab="float16", c_dtype="float32", extra=()):
    """A GEMM C[m, n] = sum_k A[m, k] B[n, k], A and B K-major, C N-major (L = 1)."""
    def build(rng):
        a = ints(rng, (M, K)).astype(ab)
        b = ints(rng, (N, K)).astype(ab)
        ref = (a.astype(np.float64) @ b.astype(np.float64).T).astype(c_dtype)
        bufs = [("a", a, (M, K, 1), (K, 1, M * K)), ("b", b, (N, K, 1), (K, 1, N * K)),
                ("c", np.zeros((M, N), c_dtype), (M, N, 1), (N, 1, M * N))]
        return bufs, {"c": ref}
    return dict(name=name, make=make, build=build, extra=extra, arch=make.arch,
                shape=dict(M=M, N=N, K=K), inputs=["a", "b"], outputs=["c"])


def transpose_case(name, M, N):
    """B = A^T through shared memory, TMA both ways (f16, A row-major M x N)."""
    def build(rng):
        a = rng.integers(-8, 9, (M, N)).astype(np.float16)
        bufs = [("a", a, (M, N), (N, 1)), ("b", np.zeros((N, M), np.float16), (N, M), (M, 1))]
        return bufs, {"b": np.ascontiguousarray(a.T)}

    def make(cutlass_dir):
        rel = "blackwell/tutorial/tutorial_tma/tma_v2.py"
        mod, commit = load_example(cutlass_dir, rel)
        return mod.Sm100MatrixTransposeKernelV2(), commit, rel
    make.arch = "sm_100a"
    return dict(name=name, make=make, build=build, extra=(1,), stream=False, arch="sm_100a",
                shape=dict(M=M, N=N), inputs=["a"], outputs=["b"])


def compile_case(cutlass_dir, case, cute, cutlass, make_fake_compact_tensor, make_fake_stream):
    rng = np.random.default_rng(20)
    bufs, ref = case["build"](rng)
    dt = {"float16": cutlass.Float16, "float32": cutlass.Float32, "bfloat16": cutlass.BFloat16}
    fakes = []
    for _, arr, shape, stride in bufs:
        order = tuple(sorted(range(len(shape)), key=lambda i: stride[i]))
        stride_order = tuple(order.index(i) for i in range(len(shape)))
        fakes.append(make_fake_compact_tensor(dt[str(arr.dtype)], shape, stride_order=stride_order,
                                              assumed_align=16))
    kernel, commit, src = case["make"](cutlass_dir)
    clear_dump()
    stream = (make_fake_stream(),) if case.get("stream", True) else ()
    compiled = cute.compile(kernel, *fakes, *case["extra"], *stream)
    ptx, clean = read_dump()
    lowered = str(compiled.ir_module)
    host = re.search(r"func\.func @cutlass___call__\w*\(([^{]*)\{llvm.emit_c", clean).group(1)
    host_args = re.findall(r"(%arg\d+):", host)
    grid, block, cluster = launch_facts(clean)
    buffers = [dict(name=n, dtype=str(a.dtype), shape=list(a.shape)) for n, a, _, _ in bufs]
    atoms = tma_atoms(clean, host_args)
    words = host_descriptors(lowered)
    assert len(words) == len(atoms), (len(words), len(atoms))
    entry = re.search(r"\.entry (\w+)\(([^)]*)\)", ptx)
    pdecls = re.findall(r"\.param \.align (\d+) \.b8 \w+\[(\d+)\]|\.param \.(\w+) \w+", entry.group(2))
    params, k = [], 0
    values = host_arguments(lowered)
    assert len(values) == len(pdecls), (len(values), len(pdecls))
    for (align, size, scalar), value in zip(pdecls, values):
        if value is None:
            at = atoms[k]
            buf = buffers[at["arg"]]
            params.append(dict(kind="tensor_map", buffer=buf["name"], direction=at["kind"],
                               **tensor_map_args(at, buf)))
            k += 1
        else:
            assert size and len(value) == int(size), (size, value)
            params.append(dict(kind="bytes", value=value.hex()))
    for i, p in enumerate(params):  # named as the other fixtures' manifests name them
        params[i] = dict(name=f"param_{i}", **p)
    name = case["name"]
    manifest = dict(source="bench/foreign/make_corpus.py", example=src, cutlass_commit=commit,
                    arch=case["arch"], kernel=entry.group(1),
                    shape=case["shape"], params=params, grid=grid, block=block, cluster=cluster,
                    dynamic_smem=dynamic_smem(lowered), buffers=buffers, inputs=case["inputs"],
                    outputs=case["outputs"], reference="numpy float64 of integer inputs",
                    descriptor_words=[[None if w is None else f"0x{w:016x}" for w in ws]
                                      for ws in words])
    return name, ptx, manifest, {n: a for n, a, _, _ in bufs}, ref


def blackwell_dense(use_2cta, tiler, cluster):
    def make(cutlass_dir):
        import cutlass
        rel = "blackwell/kernel/dense_gemm/dense_gemm.py"
        mod, commit = load_example(cutlass_dir, rel)
        return mod.DenseGemmKernel(cutlass.Float32, use_2cta, tiler, cluster, True), commit, rel
    make.arch = "sm_100a"
    return make


def blackwell_persistent(use_2cta, tiler, cluster):
    def make(cutlass_dir):
        import cutlass
        rel = "blackwell/kernel/dense_gemm/dense_gemm_persistent.py"
        mod, commit = load_example(cutlass_dir, rel)
        k = mod.PersistentDenseGemmKernel(cutlass.Float32, use_2cta, tiler, cluster, True)
        return k, commit, rel
    make.arch = "sm_100a"
    return make


def hopper_dense(tile, cluster):
    def make(cutlass_dir):
        import cutlass
        rel = "hopper/kernel/dense_gemm/dense_gemm.py"
        mod, commit = load_example(cutlass_dir, rel)
        return mod.HopperWgmmaGemmKernel(cutlass.Float32, tile, cluster), commit, rel
    make.arch = "sm_90a"
    return make


def cases(size):
    """small: make test (seconds on tile-sim each); large: bench/foreign (4x the K, 2x M and N)."""
    s, t = (1, 1) if size == "small" else (4, 2)
    return [
        gemm_case("bw_dense_1cta", blackwell_dense(False, (128, 128), (1, 1)),
                  256 * t, 128 * t, 128 * s),
        gemm_case("bw_dense_2cta", blackwell_dense(True, (256, 128), (2, 1)),
                  256 * t, 128 * t, 128 * s),
        gemm_case("bw_persistent", blackwell_persistent(False, (128, 128), (1, 1)),
                  256 * t, 256 * t, 64 * s, extra=(1,)),
        gemm_case("hopper_dense", hopper_dense((128, 128), (1, 1)), 256 * t, 128 * t, 128 * s),
        transpose_case("tma_transpose", 256 * t, 256 * t),
        gemm_case("hopper_dense_f16", hopper_dense((128, 128), (1, 1)), 128 * t, 256 * t, 128 * s,
                  c_dtype="float16"),
        *blockscaled.cases(size),
        *cute_cases.cases(size),
        *tutorial_nvfp4.cases(size),
        *cute_extra_cases.cases(size),
        *blockscaled_tensors.cases(size),
        *seq_cases.cases(size),
        *(cute_cases.pending(size) + cute_extra_cases.pending(size) if "--pending" in sys.argv
          else []),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cutlass", required=True, help="a checkout or git dir of NVIDIA/cutlass")
    ap.add_argument("--size", choices=("small", "large"), default="small")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--pending", action="store_true",
                    help="also the cases the generator cannot record yet (cute_cases.pending)")
    ap.add_argument("--rev", default="HEAD", help="the cutlass commit to take the examples from")
    ap.add_argument("--arch", help="(internal) compile the cases of this arch only")
    o = ap.parse_args()
    if o.arch is None:
        bad = 0
        for arch in ("sm_100a", "sm_90a", "sm_80"):
            bad |= subprocess.run([sys.executable] + sys.argv + ["--arch", arch]).returncode
        return bad
    REV[0] = o.rev
    out = os.path.join(ROOT, "test/fixtures/foreign" if o.size == "small" else "bench/foreign/corpus")
    os.makedirs(out, exist_ok=True)
    import cutlass
    import cutlass.cute as cute
    from cutlass.cute.runtime import make_fake_compact_tensor
    from cutlass.runtime import make_fake_stream
    failed = 0
    for case in cases(o.size):
        if case["arch"] != o.arch or (o.only and case["name"] not in o.only):
            continue
        try:
            if "compile" in case:  # a driver of its own (blockscaled.py, cute_generic.py)
                name, ptx, manifest, arrays, ref = case["compile"](o.cutlass, case, cute, cutlass,
                                                                   sys.modules[__name__])
            else:
                name, ptx, manifest, arrays, ref = compile_case(o.cutlass, case, cute, cutlass,
                                                                 make_fake_compact_tensor,
                                                                 make_fake_stream)
        except Exception as e:  # one example's failure is its line, the others go on
            if os.environ.get("CORPUS_DEBUG"):
                traceback.print_exc()
            print(f"{case['name']}: NOT COMPILED: {type(e).__name__}: "
                  f"{str(e).strip().splitlines()[-1][:300] if str(e).strip() else ''}")
            failed += 1
            continue
        with open(os.path.join(out, f"{name}.ptx"), "w") as f:
            f.write(ptx)
        with open(os.path.join(out, f"{name}.json"), "w") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")
        np.savez_compressed(os.path.join(out, f"{name}.npz"),
                            **{n: arrays[n] for n in manifest["inputs"]},
                            **{f"ref_{n}": r for n, r in ref.items()})
        for L in manifest.get("launches", [manifest]):  # a sequence: each launch
            print(f"{out}/{name}.ptx: grid {L['grid']} cluster {L['cluster']} "
                  f"smem {L['dynamic_smem']}")
    shutil.rmtree(DUMP, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
