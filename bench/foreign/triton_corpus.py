"""Regenerate the Triton part of the foreign corpus: the kernels of Triton's tutorials (fused
softmax, matmul, layer norm forward and backward, fused attention), compiled here for sm_100a and
sm_90a without a GPU, kept as Triton emits them. Not run by make or CI (the fixtures are
committed); to reproduce, in a private venv (never the project's):

    python3 -m venv /tmp/corpus-venv && /tmp/corpus-venv/bin/pip install triton==3.9.0 numpy
    TRITON_DEFAULT_FP_FUSION=1 /tmp/corpus-venv/bin/python bench/foreign/triton_corpus.py \
        --triton /path/to/triton --ptxas "$(command -v ptxas)"

``--ptxas``: the ptxas the tests assemble with (here CUDA 13.0, PTX ISA 9.0), which Triton then uses for both arches,
so the PTX's ``.version`` is what the toolchain here and the device's driver take (Triton's own
ptxas would make it 9.4). ``TRITON_DEFAULT_FP_FUSION=1``: Triton 3.9's default, set to silence its
warning.

A case names the Triton its source matches (triton_cases.py: 3.9.0 by default; 3.5.0 for the fused
attention tutorial's block pointers, removed in 3.9, and Gluon's TMEM tutorial, whose API changed):
run the script from a venv of each (``triton==3.5.0`` too); a run compiles its own version's cases.

``--triton`` is a checkout of github.com/triton-lang/triton; the kernels are the ``@triton.jit``
(``@gluon.jit``) functions of ``python/tutorials/<file>``, taken out of the file by its syntax tree (the tutorials
run benchmarks at import and need a GPU; the kernel functions themselves are unchanged) and
compiled with ``triton.compile`` for one configuration of the tutorial's autotune list, with the
specialisation Triton's launcher gives (pointers and multiples of 16 ``tt.divisibility`` 16, an
integer argument equal to 1 a constant). Each ``<name>.json`` records the launch contract as
make_corpus.py's do (``buffer`` / ``bytes`` parameters, Triton's two trailing scratch pointers as
zero bytes: the kernels use no scratch), the compiler version and the sha256 of the kernel source
text compiled; ``<name>.npz`` the inputs and the numpy reference.
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import struct
import sys
import types

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import triton_cases  # noqa: E402
import triton_desc  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TYPES = {"float16": "fp16", "float32": "fp32", "int32": "i32", "bfloat16": "bf16"}


def kernel_module(path):
    """The imports and ``@triton.jit`` functions of a tutorial file, as a module, and the sha256
    of that source text."""
    text = open(path).read()
    tree = ast.parse(text)
    keep = [n for n in tree.body
            if isinstance(n, (ast.Import, ast.ImportFrom)) and
            all(a.name.split(".")[0] == "triton" for a in n.names) or
            isinstance(n, ast.ImportFrom) and (n.module or "").startswith("triton") or
            isinstance(n, ast.FunctionDef) and
            any("jit" in ast.unparse(d) for d in n.decorator_list)]
    parts = []
    for n in keep:  # a function's segment starts at ``def``: its jit decorator alone goes back on
        seg = ast.get_source_segment(text, n, padded=False)
        jit = [d for d in getattr(n, "decorator_list", ()) if "jit" in ast.unparse(d)]
        parts.append("".join(f"@{ast.unparse(d)}\n" for d in jit) + seg)
    src = "\n\n\n".join(parts)
    mod = types.ModuleType(os.path.basename(path)[:-3].replace("-", "_"))
    mod.__file__ = path  # triton.jit reads the function's source through inspect
    tmp = os.path.join("/tmp", f"triton-corpus-{mod.__name__}.py")
    with open(tmp, "w") as f:
        f.write(src + "\n")
    mod.__file__ = tmp
    exec(compile(src, tmp, "exec"), mod.__dict__)
    return mod, hashlib.sha256(src.encode()).hexdigest()


def _ptxas_version(get_ptxas, cc):
    try:  # triton 3.9 picks a ptxas per arch; 3.5 has one
        return get_ptxas(cc).version
    except TypeError:
        return get_ptxas().version


def compile_case(triton_dir, case, cc):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    mod, digest = kernel_module(os.path.join(triton_dir, "python/tutorials", case["file"]))
    fn = getattr(mod, case["kernel"])
    rng = np.random.default_rng(20)
    bufs, ref = case["build"](rng)
    arrays = dict(bufs)
    signature, constexprs, attrs, params = {}, {}, {}, []
    for i, (name, kind, value) in enumerate(case["args"]):
        if kind == "constexpr" or kind == "i32" and value == 1:  # the launcher's specialisation
            signature[name], constexprs[name] = "constexpr", value
            continue
        if kind == "buf":
            signature[name] = "*" + TYPES[str(arrays[value].dtype)]
            attrs[(i,)] = [["tt.divisibility", 16]]
            params.append(dict(kind="buffer", buffer=value))
        elif kind == "i32":
            signature[name] = "i32"
            if value % 16 == 0:
                attrs[(i,)] = [["tt.divisibility", 16]]
            params.append(dict(kind="bytes", value=struct.pack("<i", value).hex()))
        elif kind == "f32":
            signature[name] = "fp32"
            params.append(dict(kind="bytes", value=struct.pack("<f", value).hex()))
        elif kind == "desc":  # a host TensorDescriptor (buffer, block shape): triton_desc.py
            signature[name] = triton_desc.mangle(arrays[value[0]], value[1])
            params.append(dict(kind="desc", buffer=value[0], block=list(value[1])))
    source = ASTSource
    if type(fn).__name__.startswith("Gluon"):  # a @gluon.jit kernel: Gluon's own front end
        from triton.experimental.gluon._runtime import GluonASTSource as source
    src = source(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
    k = triton.compile(src, target=GPUTarget("cuda", cc, 32), options=case["options"])
    assert k.metadata.global_scratch_size == 0, "the kernel would need global scratch memory"
    params = triton_desc.expand(params, k.metadata, arrays)  # the launcher's three per descriptor
    ptx = k.asm["ptx"]
    entry = ptx[ptx.index(".entry"):]
    n = entry[:entry.index(")")].count(".param")
    params += [dict(kind="bytes", value="00" * 8)] * (n - len(params))  # the scratch pointers
    arch = {100: "sm_100a", 90: "sm_90a"}[cc]
    assert f".target {arch}" in ptx
    name = f"triton_{case['name']}_{arch[3:5]}"
    from triton.backends.nvidia.compiler import get_ptxas
    man = dict(source="bench/foreign/triton_corpus.py", compiler=f"triton {triton.__version__}",
               ptxas=f"ptxas {_ptxas_version(get_ptxas, cc)}",
               example=f"python/tutorials/{case['file']}", kernel_sha256=digest,
               triton_commit=case.get("commit"), arch=arch, kernel=case["kernel"],
               shape=case["shape"], options=case["options"],
               params=[dict(name=f"param_{i}", **p) for i, p in enumerate(params)],
               grid=list(case["grid"]) + [1] * (3 - len(case["grid"])),
               block=[32 * k.metadata.num_warps, 1, 1], cluster=[1, 1, 1],
               dynamic_smem=k.metadata.shared,
               buffers=[dict(name=b, dtype=str(a.dtype), shape=list(a.shape)) for b, a in bufs],
               inputs=case["inputs"], outputs=case["outputs"], reference=case["reference"],
               tolerance=case.get("tolerance"),
               # Triton's driver encodes its maps at launch: no words in the host code to compare
               descriptor_words=[[None] * 16 for p in params if p["kind"] == "tensor_map"])
    return name, ptx, man, arrays, ref


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--triton", required=True, help="a checkout of triton-lang/triton")
    ap.add_argument("--size", choices=("small", "large"), default="small")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--ptxas", help="the ptxas Triton uses (its PTX version follows it)")
    o = ap.parse_args()
    if o.ptxas:
        os.environ["TRITON_PTXAS_PATH"] = os.environ["TRITON_PTXAS_BLACKWELL_PATH"] = o.ptxas
    out = os.path.join(ROOT, "test/fixtures/foreign" if o.size == "small" else "bench/foreign/corpus")
    os.makedirs(out, exist_ok=True)
    import triton
    bad = 0
    for case in triton_cases.cases(o.size):
        if case.get("triton", "3.9.0") != triton.__version__:  # its source's Triton only
            continue
        for cc in case.get("ccs", (100, 90)):
            try:
                name, ptx, man, arrays, ref = compile_case(o.triton, case, cc)
            except Exception as e:  # one kernel's failure is its line
                print(f"{case['name']} sm_{cc}: NOT COMPILED: {type(e).__name__}: "
                      f"{str(e).strip().splitlines()[-1][:300] if str(e).strip() else ''}")
                bad += 1
                continue
            if o.only and name not in o.only:
                continue
            with open(os.path.join(out, f"{name}.ptx"), "w") as f:
                f.write(ptx)
            with open(os.path.join(out, f"{name}.json"), "w") as f:
                json.dump(man, f, indent=1)
                f.write("\n")
            np.savez_compressed(os.path.join(out, f"{name}.npz"),
                                **{n: arrays[n] for n in man["inputs"]},
                                **{f"ref_{n}": r for n, r in ref.items()})
            print(f"{out}/{name}.ptx: grid {man['grid']} block {man['block']} "
                  f"smem {man['dynamic_smem']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
