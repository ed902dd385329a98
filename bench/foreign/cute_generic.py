"""make_corpus.py's driver for a CuTe DSL example compiled from its own host entry point (a
``@cute.jit`` function or a kernel class's ``__call__``) with static fake tensors, raw pointers and
scalars: the launch contract read from what the DSL compiled, as for the TMA GEMMs, with two more
parameter kinds:

* ``buffer``: a kernel parameter that is a tensor's global address alone (a static-layout
  ``cute.Tensor`` lowers to a struct of its pointer; a ``cute.Pointer`` to the pointer);
* ``bytes`` of a scalar (an ``Int32`` row count, a ``Float32`` epsilon or softmax scale): its bits
  as the host passes them;
* ``struct``: a by-value struct holding global addresses and run-time values (a tensor with a
  run-time layout: its address and its shape), its bytes with each pointer field zero and
  ``pointers``, the byte offset of each pointer field and the buffer it addresses (run_ptx binds
  it through ``sim.ByValue``).

Which host argument a kernel parameter comes from is read by interpreting the lowered host
function (host_eval.py) with each host pointer argument bound to a marker ``"ptr:<buffer>"`` and
each scalar to its bit pattern; a parameter whose value the interpreter cannot follow stops the
generation (never a silent zero).
"""
from __future__ import annotations

import re
import struct

import numpy as np

import host_eval

SCALAR_BITS = {"i1": ("<?", 1), "i32": ("<i", 4), "i64": ("<q", 8), "f32": ("<f", 4)}


def _leaves(v):
    if isinstance(v, list):
        for e in v:
            yield from _leaves(e)
    else:
        yield v


def _host_signature(lowered, mc):
    fn = mc.host_function(lowered)
    head = fn[:fn.index("\n")]
    return fn, re.findall(r"(%arg\d+): (!llvm\.struct<[^%]*?\)>|!llvm\.ptr(?:<\d+>)?|i\d+|f\d+)"
                          r"(?= \{[^}]*\})?(?=, %arg|\) ->|\) attr| \{)", head)


def bind_host_arguments(lowered, mc, runtime):
    """{"%argN": value} for the host function's arguments, in order of ``runtime``: ("ptr", name)
    for a tensor or pointer (("ptr", name, values): a tensor with a run-time layout, the values of
    its shape and stride fields), ("i32"|"i64"|"f32", value) for a scalar, ("stream",) for a stream."""
    fn, sig = _host_signature(lowered, mc)
    assert len(sig) == len(runtime), (sig, runtime)
    env = {}
    for (name, typ), r in zip(sig, runtime):
        if r[0] == "ptr":
            if typ.startswith("!llvm.struct"):
                val = mc._value(typ)
                val[0] = f"ptr:{r[1]}"
                if len(r) > 2:  # a run-time layout: its shape and stride fields, in order
                    _fill(val, list(r[2]))
                env[name] = val
            else:
                env[name] = f"ptr:{r[1]}"
        elif r[0] in SCALAR_BITS:
            fmt, n = SCALAR_BITS[r[0]]
            env[name] = int.from_bytes(struct.pack(fmt, r[1]), "little")
        else:
            env[name] = None
    return fn, env


def _fill(val, leaves, top=True):
    """Set the leaves of a struct value after its pointer (field 0) from ``leaves``, in order."""
    for i, v in enumerate(val):
        if top and i == 0:
            continue
        if isinstance(v, list):
            _fill(v, leaves, False)
        else:
            assert leaves, ("fewer layout values than fields", val)
            val[i] = leaves.pop(0)
    assert not top or not leaves, ("more layout values than fields", leaves)


def kernel_parameters(lowered, mc, runtime):
    """(per kernel argument ("tensor_map", None) | ("buffer", name) | ("bytes", bytes), the
    interpreter's environment)."""
    fn, env = bind_host_arguments(lowered, mc, runtime)
    vals = host_eval.evaluate(fn, mc._value, args=env)
    call = re.search(r"llvm\.call @_cudaLaunchKernelEx\(%\d+, %\d+, (%\d+)\)", fn).group(1)
    out = []
    for m in re.finditer(rf"(%\d+) = llvm\.getelementptr {call}\[(%\d+)\]", fn):
        ptr = re.search(rf"llvm\.store (%\d+), {m.group(1)} : !llvm\.ptr, !llvm\.ptr", fn).group(1)
        typ = re.search(rf"{ptr} = llvm\.alloca %\d+ x (!llvm\.struct<[^\n]*?\)>|i\d+|f\d+|"
                        rf"!llvm\.ptr(?:<\d+>)?)( \{{alignment| : )", fn).group(1)
        if "array<16 x i64>" in typ:
            out.append(("tensor_map", None))
            continue
        src = re.search(rf"llvm\.store (%\w+), {ptr} : ", fn).group(1)
        v = vals.get(src) if src.startswith("%") else None
        leaves = list(_leaves(v))
        ptrs = [x for x in leaves if isinstance(x, str)]
        if ptrs:
            if len(ptrs) == 1 and mc._layout_of(typ)[0] == 8:
                out.append(("buffer", ptrs[0][4:]))
            else:  # the address and the run-time layout
                fields = pointer_fields(mc, typ, v)
                out.append(("struct", (mc._bytes(typ, _zero_pointers(v)), fields)))
            continue
        # a scalar must be known; a struct's fields the host leaves undefined (the tiled MMA's
        # run-time flags before the kernel sets them) pass as zero bytes, as make_corpus's do
        assert v is not None, f"kernel argument {len(out)} ({typ}) unknown"
        out.append(("bytes", mc._bytes(typ, v)))
    return out, vals


def _zero_pointers(v):
    if isinstance(v, list):
        return [_zero_pointers(e) for e in v]
    return 0 if isinstance(v, str) else v


def pointer_fields(mc, typ, v, base=0):
    """[(byte offset, buffer)] of each ``"ptr:<buffer>"`` leaf of the value ``v`` of LLVM type
    ``typ`` (make_corpus._layout_of gives the fields' offsets)."""
    if isinstance(v, str):
        assert mc._layout_of(typ)[0] == 8, (typ, v)
        return [(base, v[4:])]
    _, _, fields = mc._layout_of(typ)
    if fields is None or not isinstance(v, list):
        return []
    return [f for (off, ft), e in zip(fields, v) for f in pointer_fields(mc, ft, e, base + off)]


def value_param(kind, v) -> dict:
    """The manifest entry of a kernel parameter that is not a tensor map, as kernel_parameters
    reads it: a buffer's name, a struct's bytes with its pointer fields (byte offset -> buffer), or
    a scalar's bytes."""
    if kind == "buffer":
        return dict(kind="buffer", buffer=v)
    if kind == "struct":
        return dict(kind="struct", value=v[0].hex(),
                    pointers=[dict(offset=o, buffer=n) for o, n in v[1]])
    return dict(kind="bytes", value=v.hex())


def map_directions(ptx, entry):
    """{kernel parameter index: "load" | "store"} for each tensor-map parameter the PTX uses in a
    cp.async.bulk.tensor (global -> shared: load; shared -> global, or a reduction: store): the
    host creates its TMA atoms in an order of its own, so the parameter a map binds to is matched by
    its direction (then by order), not by creation order alone."""
    names = re.findall(rf"\.param[^\n]*?({entry}_param_(\d+))", ptx)
    alias = {}  # register -> parameter index, through mov.b64 and cvta.param
    for m in re.finditer(r"mov\.b64\s+(%rd\d+), (\w+_param_(\d+));", ptx):
        alias[m.group(1)] = int(m.group(3))
    for m in re.finditer(r"cvta\.param\.u64\s+(%rd\d+), (%rd\d+);", ptx):
        if m.group(2) in alias:
            alias[m.group(1)] = alias[m.group(2)]
    out = {}
    for m in re.finditer(r"cp(?:\.reduce)?\.async\.bulk\.tensor\.\w+\.([\w:]+?)\.([\w:]+?)\."
                         r"[^\[]*\[(?:%r\w+(?:\+\d+)?\], \[)?(%rd\d+),", ptx):
        dst, reg = m.group(1), m.group(3)
        if reg in alias:
            out[alias[reg]] = "store" if dst == "global" else "load"
    assert names is not None
    return out


def launch_grid(fn, env):
    """The grid the host stores into its launch config (field 0) before cudaLaunchKernelEx."""
    grid = []
    for i in range(3):
        gep = re.search(rf"(%\d+) = llvm\.getelementptr %\d+\[0, 0, {i}\] : \(!llvm\.ptr\) -> "
                        rf"!llvm\.ptr, !llvm\.struct<\(array<3 x i32>, array<3 x i32>, i64",
                        fn).group(1)
        grid.append(env.get(re.search(rf"llvm\.store (%\w+), {gep} : i32", fn).group(1)))
    return grid


def compile_generic(cutlass_dir, case, cute, cutlass, mc):
    """Compile one case (``case["setup"](mod, cute, cutlass, bufs)`` -> (jit callable, call args,
    runtime args as bind_host_arguments takes them)) and read its contract."""
    rng = np.random.default_rng(20)
    bufs, ref = case["build"](rng)
    mod, commit = mc.load_example(cutlass_dir, case["example"])
    fn, call_args, runtime = case["setup"](mod, cute, cutlass, bufs)
    mc.clear_dump()
    compiled = cute.compile(fn, *call_args, **case.get("compile_kwargs", {}))
    ptx, clean = mc.read_dump()
    lowered = str(compiled.ir_module)
    mc.host_function(lowered)  # names the launching host function (mc.HOST)
    host = re.search(rf"func\.func @{mc.HOST[0]}\(([^{{]*)\{{llvm.emit_c", clean).group(1)
    host_args = re.findall(r"(%arg\d+):", host)
    kparams, env = kernel_parameters(lowered, mc, runtime)
    grid, block, cluster = mc.launch_facts(clean, grid="exact_grid_dim" in clean)
    if grid is None:  # a run-time grid (a run-time row count): what the host stores
        grid = launch_grid(mc.host_function(lowered), env)
        assert all(isinstance(g, int) for g in grid), grid
    names = [n for n, _ in bufs]
    buffers = [dict(name=n, dtype=str(a.dtype), shape=list(a.shape)) for n, a in bufs]
    for b in buffers:  # a device table of addresses: its pointer fields (corpus.arrays)
        if b["name"] in case.get("tables", {}):
            b["pointers"] = [dict(offset=o, buffer=n) for o, n in case["tables"][b["name"]]]
    atoms = mc.tma_atoms(clean, host_args)
    words = mc.host_descriptors(lowered)
    entry = re.search(r"\.entry (\w+)\(", ptx)
    dirs = map_directions(ptx, entry.group(1))
    pending = {d: [a for a in atoms if a["kind"] == d] for d in ("load", "store")}
    params, k = [], 0
    for i, (kind, v) in enumerate(kparams):
        if kind == "tensor_map":
            at = pending[dirs[i]].pop(0) if i in dirs else atoms[k]
            buf = buffers[names.index(runtime[at["arg"]][1])]
            params.append(dict(name=f"param_{i}", kind="tensor_map", buffer=buf["name"],
                               direction=at["kind"],
                               **mc.tensor_map_args(at, buf, case.get("layouts", {}).get(
                                   buf["name"]))))
            k += 1
        else:
            params.append(dict(name=f"param_{i}", **value_param(kind, v)))
    assert k == len(atoms) == len(words), (k, len(atoms), len(words))
    manifest = dict(source="bench/foreign/make_corpus.py", example=case["example"],
                    cutlass_commit=commit, arch=case["arch"], kernel=entry.group(1),
                    shape=case["shape"], params=params, grid=grid, block=block, cluster=cluster,
                    dynamic_smem=mc.dynamic_smem(lowered), buffers=buffers,
                    inputs=case["inputs"], outputs=case["outputs"], reference=case["reference"],
                    tolerance=case.get("tolerance"),
                    descriptor_words=[[None if w is None else f"0x{w:016x}" for w in ws]
                                      for ws in words])
    return case["name"], ptx, manifest, dict(bufs), ref
