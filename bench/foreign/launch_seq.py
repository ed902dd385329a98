"""make_corpus.py's driver for a CuTe DSL example whose host function launches several kernels
(the Blackwell FMHA backward: a row-sum kernel, the backward kernel, a dQ conversion): the
manifest's ``launches`` (bench/foreign/corpus.py), one entry per ``cudaLaunchKernelEx`` of the
host function in its order, each with its PTX entry, parameters, grid, block, cluster, dynamic
shared memory and the tensor maps it takes, all over the one set of buffers.

The host function is interpreted once (host_eval.py with ``memory=True``: it follows the host's
stack memory and walks past each launch); each launch's parameters are read from the argument
array of its own call, its grid, block and shared memory from the stores into its own launch
config, its entry from the kernel symbol the call loads, its cluster from that kernel's
``cutlass_launch_facts``. A kernel argument that addresses a buffer at a byte offset (the
workspace's sub-tensors, ``workspace.iterator + bytes``) is a ``struct`` parameter whose pointer
field holds that offset (run_ptx and device_run.py add the buffer's address to it); a tensor map
over such a sub-tensor records ``offset``, which the case states and the generator checks against
the offsets the launches' pointer arguments carry.
"""
from __future__ import annotations

import re

import numpy as np

import cute_generic
import host_eval

LAUNCH = r"(%\d+) = llvm\.call @_cudaLaunchKernelEx\((%\d+), (%\d+), (%\d+)\)"
CONFIG = r"!llvm\.struct<\(array<3 x i32>, array<3 x i32>, i64"


def _split_ptr(v):
    """"ptr:<buffer>+<n>" -> (buffer, n)."""
    name, _, off = v[4:].partition("+")
    return name, int(off or 0)


def _with_offsets(v):
    """A struct value with each pointer leaf replaced by its byte offset into its buffer."""
    if isinstance(v, list):
        return [_with_offsets(e) for e in v]
    return _split_ptr(v)[1] if isinstance(v, str) else v


def launch_parameters(fn, vals, argv, mc):
    """[(kind, value)] of the kernel arguments in the array ``argv`` of one cudaLaunchKernelEx:
    ("tensor_map", None), ("buffer", name), ("struct", (bytes, [(field offset, buffer)])) or
    ("bytes", bytes), as cute_generic.kernel_parameters reads them for one launch."""
    out = []
    for m in re.finditer(rf"(%\d+) = llvm\.getelementptr {argv}\[(%\d+)\]", fn):
        ptr = re.search(rf"llvm\.store (%\d+), {m.group(1)} : !llvm\.ptr, !llvm\.ptr", fn).group(1)
        typ = re.search(rf"{ptr} = llvm\.alloca %\d+ x (!llvm\.struct<[^\n]*?\)>|i\d+|f\d+|"
                        rf"!llvm\.ptr(?:<\d+>)?)( \{{alignment| : )", fn).group(1)
        if "array<16 x i64>" in typ:
            out.append(("tensor_map", None))
            continue
        src = re.search(rf"llvm\.store (%\w+), {ptr} : ", fn).group(1)
        v = vals.get(src) if src.startswith("%") else None
        ptrs = [x for x in cute_generic._leaves(v) if isinstance(x, str)]
        if ptrs:
            name, off = _split_ptr(ptrs[0])
            if len(ptrs) == 1 and mc._layout_of(typ)[0] == 8 and not off:
                out.append(("buffer", name))
            else:  # an address at an offset, or with a run-time layout
                fields = [(o, _split_ptr("ptr:" + n)[0])
                          for o, n in cute_generic.pointer_fields(mc, typ, v)]
                out.append(("struct", (mc._bytes(typ, _with_offsets(v)), fields)))
            continue
        assert v is not None, f"kernel argument {len(out)} ({typ}) unknown"
        out.append(("bytes", mc._bytes(typ, v)))
    return out


def _config_field(segment, vals, field, i=None):
    """The value the host stores into field ``field`` (index ``i``) of the launch config it
    fills in ``segment`` (the host text from the previous launch to this one)."""
    idx = f"0, {field}" + (f", {i}" if i is not None else "")
    gep = re.findall(rf"(%\d+) = llvm\.getelementptr %\d+\[{idx}\] : \(!llvm\.ptr\) -> "
                     rf"!llvm\.ptr, {CONFIG}", segment)[-1]
    v = vals.get(re.search(rf"llvm\.store (%\w+), {gep} : i(?:32|64)", segment).group(1))
    assert isinstance(v, int), ("launch config field", field, i, v)
    return v


def entry_text(ptx, entry):
    """The PTX text of one entry (registers are per function: map_directions reads one)."""
    start = ptx.index(f".entry {entry}(")
    nxt = ptx.find(".entry ", start + 1)
    return ptx[start:nxt if nxt > 0 else len(ptx)]


def compile_sequence(cutlass_dir, case, cute, cutlass, mc):
    """Compile one case (``case["setup"]`` as cute_generic's) whose host launches several
    kernels; the manifest's ``launches`` in the host's order."""
    rng = np.random.default_rng(20)
    bufs, ref = case["build"](rng)
    mod, commit = mc.load_example(cutlass_dir, case["example"])
    fn_obj, call_args, runtime = case["setup"](mod, cute, cutlass, bufs)
    mc.clear_dump()
    compiled = cute.compile(fn_obj, *call_args)
    ptx, clean = mc.read_dump()
    lowered = str(compiled.ir_module)
    fn, env = cute_generic.bind_host_arguments(lowered, mc, runtime)
    vals = host_eval.evaluate(fn, mc._value, args=env, memory=True)
    host = re.search(rf"func\.func @{mc.HOST[0]}\(([^{{]*)\{{llvm.emit_c", clean).group(1)
    host_args = re.findall(r"(%arg\d+):", host)
    names = [n for n, _ in bufs]
    buffers = [dict(name=n, dtype=str(a.dtype), shape=list(a.shape)) for n, a in bufs]
    atoms = mc.tma_atoms(clean, host_args)
    words = mc.host_descriptors(lowered)
    assert len(atoms) == len(words), (len(atoms), len(words))
    facts = {k: v for k, v in re.findall(r"cuda\.kernel @(\w+)\(.*?cutlass_launch_facts = "
                                         r"\{([^}]*)\}", clean)}
    launches, prev, k = [], 0, 0
    offsets = {}  # buffer -> byte offsets the launches' pointer arguments carry
    for call in re.finditer(LAUNCH, fn):
        segment = fn[prev:call.end()]
        prev = call.end()
        sym = re.search(rf"{call.group(3)} = llvm\.load (%\d+)", fn).group(1)
        entry = re.search(rf"{sym} = llvm\.mlir\.addressof @kernels_(\w+)", fn).group(1)
        assert f".entry {entry}(" in ptx, entry
        cluster = [int(x) for x in re.search(r"exact_cluster_dim = array<i64: ([\d, ]+)>",
                                             facts[entry]).group(1).split(",")]
        dirs = cute_generic.map_directions(entry_text(ptx, entry), entry)
        # a reduce atom (TMA reduce-add into global memory) is a store's direction
        pending = {d: [a for a in atoms if {"reduce": "store"}.get(a["kind"], a["kind"]) == d]
                   for d in ("load", "store")}
        params, descs = [], []
        for i, (kind, v) in enumerate(launch_parameters(fn, vals, call.group(4), mc)):
            p = dict(name=f"param_{i}")
            if kind == "tensor_map":
                at = pending[dirs[i]].pop(0) if i in dirs else atoms[k]
                j = atoms.index(at)
                buf = buffers[names.index(runtime[at["arg"]][1])]
                # the element is the atom's (a map over a byte workspace reads its f32 view)
                elem = dict(buf, dtype=mc.TMA_TYPES[at["format"]].replace("tfloat32", "float32"))
                p.update(kind="tensor_map", buffer=buf["name"], direction=at["kind"],
                         **mc.tensor_map_args(at, elem, case.get("layouts", {}).get(buf["name"])))
                if case.get("map_offsets", {}).get(buf["name"]):
                    p["offset"] = case["map_offsets"][buf["name"]]
                descs.append([None if w is None else f"0x{w:016x}" for w in words[j]])
                atoms[j] = dict(at, kind="used")  # each atom is one launch's map
                k += 1
            elif kind == "buffer":
                p.update(kind="buffer", buffer=v)
            elif kind == "struct":
                p.update(kind="struct", value=v[0].hex(),
                         pointers=[dict(offset=o, buffer=n) for o, n in v[1]])
                for o, n in v[1]:
                    offsets.setdefault(n, set()).add(int.from_bytes(v[0][o:o + 8], "little"))
            else:
                p.update(kind="bytes", value=v.hex())
            params.append(p)
        launches.append(dict(
            kernel=entry, params=params,
            grid=[_config_field(segment, vals, 0, i) for i in range(3)],
            block=[_config_field(segment, vals, 1, i) for i in range(3)], cluster=cluster,
            dynamic_smem=_config_field(segment, vals, 2), descriptor_words=descs))
    assert k == len(atoms), ("maps bound", k, len(atoms))
    for buf, off in case.get("map_offsets", {}).items():  # a stated offset is one the host uses
        assert off in offsets.get(buf, ()), (buf, off, offsets)
    manifest = dict(source="bench/foreign/make_corpus.py", example=case["example"],
                    cutlass_commit=commit, arch=case["arch"], shape=case["shape"],
                    launches=launches, buffers=buffers, inputs=case["inputs"],
                    outputs=case["outputs"], reference=case["reference"],
                    tolerance=case.get("tolerance"))
    return case["name"], ptx, manifest, dict(bufs), ref
