"""make_corpus.py's driver for a CuTe DSL example whose host function launches several kernels
(the Blackwell FMHA backward: a row-sum kernel, the backward kernel, a dQ conversion) or launches
one with a preferred cluster (fp16_gemm_4): the manifest's ``launches`` (bench/foreign/corpus.py),
one entry per ``cudaLaunchKernelEx`` of the host function in its order, each with its PTX entry,
parameters, grid, block, cluster (and ``preferred_cluster``), dynamic shared memory and the tensor
maps it takes, all over the one set of buffers.

The host function is interpreted once (host_eval.py with ``memory=True``: it follows the host's
stack memory and walks past each launch); each launch's parameters are read from the argument
array of its own call, its grid, block and shared memory from the stores into its own launch
config, its entry from the kernel symbol the call loads, its cluster shapes from the clean IR's
``cuda.launch_cfg`` of that launch. A tensor-map parameter is bound by data flow to the 16 x i64
descriptor its value is copied from, and that descriptor to its buffer by the host argument its
address word is computed from (map_sources). A kernel argument that addresses a buffer at a byte
offset (the workspace's sub-tensors, ``workspace.iterator + bytes``) is a ``struct`` parameter
whose pointer field holds that offset (run_ptx and device_run.py add the buffer's address to it);
a tensor map over such a sub-tensor records ``offset``, which the case states and the generator
checks against the offsets the launches' pointer arguments carry.
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
    ("tensor_map", the SSA value stored), ("buffer", name), ("struct", (bytes, [(field offset, buffer)])) or
    ("bytes", bytes), as cute_generic.kernel_parameters reads them for one launch."""
    out = []
    for m in re.finditer(rf"(%\d+) = llvm\.getelementptr {argv}\[(%\d+)\]", fn):
        ptr = re.search(rf"llvm\.store (%\d+), {m.group(1)} : !llvm\.ptr, !llvm\.ptr", fn).group(1)
        typ = re.search(rf"{ptr} = llvm\.alloca %\d+ x (!llvm\.struct<[^\n]*?\)>|i\d+|f\d+|"
                        rf"!llvm\.ptr(?:<\d+>)?)( \{{alignment| : )", fn).group(1)
        src = re.search(rf"llvm\.store (%\w+), {ptr} : ", fn).group(1)
        if "array<16 x i64>" in typ:  # its value: slot_descriptor finds the map it copies
            out.append(("tensor_map", src))
            continue
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
        assert not _unknown_pointers(mc, typ, v), (f"kernel argument {len(out)} ({typ}): a "
                                                   f"pointer field the host evaluation lost")
        out.append(("bytes", mc._bytes(typ, v)))
    return out


def _unknown_pointers(mc, typ, v):
    """Whether a pointer field of the value ``v`` of LLVM type ``typ`` is not known (it would pass
    as zero bytes: never silently)."""
    if re.fullmatch(r"!?(llvm\.)?ptr(<\d+>)?", typ.strip()):
        return not isinstance(v, str)
    _, _, fields = mc._layout_of(typ)
    if fields is None:
        return False
    return any(_unknown_pointers(mc, ft, e if isinstance(v, list) else None)
               for (_, ft), e in zip(fields, v if isinstance(v, list) else [None] * len(fields)))


def _config_field(segment, vals, field, i=None):
    """The value the host stores into field ``field`` (index ``i``) of the launch config it
    fills in ``segment`` (the host text from the previous launch to this one)."""
    idx = f"0, {field}" + (f", {i}" if i is not None else "")
    gep = re.findall(rf"(%\d+) = llvm\.getelementptr %\d+\[{idx}\] : \(!llvm\.ptr\) -> "
                     rf"!llvm\.ptr, {CONFIG}", segment)[-1]
    v = vals.get(re.search(rf"llvm\.store (%\w+), {gep} : i(?:32|64)", segment).group(1))
    assert isinstance(v, int), ("launch config field", field, i, v)
    return v


def _definitions(fn):
    """{SSA name: the text after its ``=``} of the host function."""
    return dict(re.findall(r"^\s*(%\w+) = (.*)$", fn, re.M))


def _nearest(defs, start, targets):
    """The target SSA name nearest ``start`` through the operands of its definitions (the
    data flow of a value back to the object it was built from), None if none is reached."""
    seen, frontier = {start}, [start]
    while frontier:
        hit = [n for n in frontier if n in targets]
        if hit:
            assert len(set(hit)) == 1, ("two sources at one distance", start, hit)
            return hit[0]
        nxt = []
        for n in frontier:
            for op in re.findall(r"%\w+", defs.get(n, "").split(" : ")[0]):
                if op not in seen:
                    seen.add(op)
                    nxt.append(op)
        frontier = nxt
    return None


def map_sources(fn, runtime, atoms, words):
    """Per 16 x i64 descriptor the host encodes (host_descriptors' order): (its TMA atom, its
    buffer). A descriptor's buffer is the host argument its address word is computed from; its
    atom is the next one the clean IR creates when that atom's host argument is its buffer, else
    the atom of an earlier descriptor with the same words and buffer (the DSL's IR folds two
    equal atoms into one: fp16_gemm_4's B for its preferred and fallback clusters; two distinct
    atoms may still encode equal words, as the fp8 MLA's K and V views of one cache do)."""
    defs = _definitions(fn)
    allocas = re.findall(r"(%\d+) = llvm\.alloca %\d+ x i64 \{alignment = 64", fn)
    assert len(allocas) == len(words), (allocas, len(words))
    args = {f"%arg{i}": i for i in range(len(runtime))}
    out, nxt = [], 0
    for a, w in zip(allocas, words):
        g = re.search(rf"(%\d+) = llvm\.getelementptr {a}\[0, 0\]", fn).group(1)
        addr = re.findall(rf"llvm\.store (%\w+), {g} : i64", fn)[-1]  # the last: the address
        arg = args[_nearest(defs, addr, set(args))]
        if nxt < len(atoms) and atoms[nxt]["arg"] == arg:
            out.append((nxt, arg))
            nxt += 1
            continue
        same = [o for (o, w0) in zip(out, words) if o[1] == arg and w0 == w]
        assert same, ("a descriptor with no atom", a, arg, atoms[nxt:])
        out.append(same[0])
    assert nxt == len(atoms), ("atoms without a descriptor", nxt, len(atoms))
    return out, allocas


def slot_descriptor(fn, src, allocas):
    """The descriptor (index into ``allocas``) a tensor-map kernel argument's value is built
    from."""
    hit = _nearest(_definitions(fn), src, set(allocas))
    assert hit, ("a tensor-map argument from no descriptor", src)
    return allocas.index(hit)


def launch_configs(clean):
    """Per launch of the clean IR's host function, in order: {"cluster": [x, y, z]} and
    ``preferred_cluster`` where the host asks for one (CUDA's preferred-cluster launch attribute:
    the GPU may run each cluster of that shape, or of ``cluster`` shape where it does not fit)."""
    out = []
    for cfg in re.findall(r"(%\w+) = cuda\.launch_cfg\.create", clean):
        d = {}
        for key, vals in re.findall(rf"cuda\.launch_cfg\.(cluster_dim|preferred_cluster_dim)"
                                    rf"\[{cfg}\] \(([^)]*)\)", clean):
            dims = [int(re.fullmatch(r"%c(\d+)_i32", v.strip()).group(1)) for v in vals.split(",")]
            d["cluster" if key == "cluster_dim" else "preferred_cluster"] = dims
        out.append(d)
    return out


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
    buffers = [dict(name=n, dtype=str(a.dtype), shape=list(a.shape),
                    **({"element": case["elements"][n]} if n in case.get("elements", {}) else {}))
               for n, a in bufs]
    atoms = mc.tma_atoms(clean, host_args)
    words = mc.host_descriptors(lowered)
    sources, allocas = map_sources(fn, runtime, atoms, words)
    configs = launch_configs(clean)
    calls = list(re.finditer(LAUNCH, fn))
    assert len(configs) == len(calls), (len(configs), len(calls))
    launches, prev, used = [], 0, set()
    offsets = {}  # buffer -> byte offsets the launches' pointer arguments carry
    for call, cfg in zip(calls, configs):
        segment = fn[prev:call.end()]
        prev = call.end()
        sym = re.search(rf"{call.group(3)} = llvm\.load (%\d+)", fn).group(1)
        entry = re.search(rf"{sym} = llvm\.mlir\.addressof @kernels_(\w+)", fn).group(1)
        assert f".entry {entry}(" in ptx, entry
        params, descs = [], []
        for i, (kind, v) in enumerate(launch_parameters(fn, vals, call.group(4), mc)):
            p = dict(name=f"param_{i}")
            if kind == "tensor_map":
                d = slot_descriptor(fn, v, allocas)
                at = atoms[sources[d][0]]
                used.add(d)
                buf = buffers[names.index(runtime[at["arg"]][1])]
                # the element is the atom's (a map over a byte workspace reads its f32 view)
                elem = dict(buf, dtype=mc.TMA_TYPES[at["format"]].replace("tfloat32", "float32"))
                p.update(kind="tensor_map", buffer=buf["name"], direction=at["kind"],
                         **mc.tensor_map_args(at, elem, case.get("layouts", {}).get(buf["name"])))
                if case.get("map_offsets", {}).get(buf["name"]):
                    p["offset"] = case["map_offsets"][buf["name"]]
                descs.append([None if w is None else f"0x{w:016x}" for w in words[d]])
            else:
                p.update(cute_generic.value_param(kind, v))
                for o, n in v[1] if kind == "struct" else ():
                    offsets.setdefault(n, set()).add(int.from_bytes(v[0][o:o + 8], "little"))
            params.append(p)
        launches.append(dict(
            kernel=entry, params=params,
            grid=[_config_field(segment, vals, 0, i) for i in range(3)],
            block=[_config_field(segment, vals, 1, i) for i in range(3)],
            cluster=cfg.get("cluster", [1, 1, 1]),
            **({"preferred_cluster": cfg["preferred_cluster"]} if "preferred_cluster" in cfg
               else {}),
            dynamic_smem=_config_field(segment, vals, 2), descriptor_words=descs))
    assert used == set(range(len(allocas))), ("descriptors no launch takes", used)
    for buf, off in case.get("map_offsets", {}).items():  # a stated offset is one the host uses
        assert off in offsets.get(buf, ()), (buf, off, offsets)
    manifest = dict(source="bench/foreign/make_corpus.py", example=case["example"],
                    cutlass_commit=commit, arch=case["arch"], shape=case["shape"],
                    launches=launches, buffers=buffers, inputs=case["inputs"],
                    outputs=case["outputs"], reference=case["reference"],
                    tolerance=case.get("tolerance"))
    return case["name"], ptx, manifest, dict(bufs), ref
