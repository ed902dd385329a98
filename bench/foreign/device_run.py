"""Run foreign-corpus kernels on a GPU through the CUDA driver alone (ctypes + numpy: no MLIR, no
cuda-bindings, no tile_mlir), so it runs on the H200 box:

    python3 bench/foreign/device_run.py OUTDIR FIXTURE_DIR...

Per ``<name>.json`` whose arch the device runs (sm_90a on an H200): loads ``<name>.cubin`` (else
the PTX, JIT-compiled by the driver), makes each tensor map with ``cuTensorMapEncodeTiled`` from
the manifest's recorded arguments and compares its 128 bytes with the words the CuTe DSL host code
encodes inline (the map's address word put in), launches with the recorded grid / block / cluster /
dynamic shared memory, and compares the outputs with the numpy reference bit for bit (or within
the manifest's tolerance). A manifest with ``launches`` (a host function that launches several
kernels, bench/foreign/launch_seq.py) runs each launch in order over the same device buffers, as
the host's stream does; a struct's pointer field holds a byte offset into its buffer. Writes
``OUTDIR/<name>.out.npz`` (the GPU's outputs) and prints one line per kernel; ``matrix_*.ptx``
single-warp kernels (ld/stmatrix, bench/foreign/matrix_cases.py) run too, their outputs saved.
"""
from __future__ import annotations

import ctypes as C
import glob
import json
import os
import subprocess
import sys

import numpy as np

TYPES = {"uint8": 0, "uint16": 1, "uint32": 2, "int32": 3, "uint64": 4, "int64": 5, "float16": 6,
         "float32": 7, "float64": 8, "bfloat16": 9, "float32_ftz": 10, "tfloat32": 11}
SWIZZLE = {"none": 0, "32b": 1, "64b": 2, "128b": 3}
L2 = {"none": 0, "64b": 1, "128b": 2, "256b": 3}
cu = C.CDLL("libcuda.so.1")


def ck(r, what):
    if r != 0:
        s = C.c_char_p()
        cu.cuGetErrorString(r, C.byref(s))
        raise RuntimeError(f"{what}: CUDA error {r} ({s.value.decode() if s.value else '?'})")


def init():
    ck(cu.cuInit(0), "cuInit")
    dev = C.c_int()
    ck(cu.cuDeviceGet(C.byref(dev), 0), "cuDeviceGet")
    ctx = C.c_void_p()
    ck(cu.cuDevicePrimaryCtxRetain(C.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    ck(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    name = C.create_string_buffer(100)
    cu.cuDeviceGetName(name, 100, dev)
    major, minor = C.c_int(), C.c_int()
    cu.cuDeviceGetAttribute(C.byref(major), 75, dev)
    cu.cuDeviceGetAttribute(C.byref(minor), 76, dev)
    return name.value.decode(), (major.value, minor.value)


def alloc(arr):
    p = C.c_uint64()
    ck(cu.cuMemAlloc_v2(C.byref(p), max(arr.nbytes, 16)), "cuMemAlloc")
    ck(cu.cuMemcpyHtoD_v2(p, arr.ctypes.data_as(C.c_void_p), arr.nbytes), "cuMemcpyHtoD")
    return p.value


def fetch(ptr, like):
    out = np.empty_like(like)
    ck(cu.cuMemcpyDtoH_v2(out.ctypes.data_as(C.c_void_p), C.c_uint64(ptr), out.nbytes),
       "cuMemcpyDtoH")
    return out


def load(base):
    mod = C.c_void_p()
    if os.path.exists(base + ".cubin"):
        img = open(base + ".cubin", "rb").read()
    else:
        img = open(base + ".ptx", "rb").read() + b"\0"
    ck(cu.cuModuleLoadData(C.byref(mod), img), f"cuModuleLoadData {base}")
    return mod


def encode(p, addr, l2=None):
    tm = (C.c_uint64 * 16)()
    r = p["rank"]
    dims = (C.c_uint64 * r)(*p["global_dim"])
    strides = (C.c_uint64 * max(r - 1, 1))(*p["global_strides"])
    box = (C.c_uint32 * r)(*p["box_dim"])
    es = (C.c_uint32 * r)(*p["element_strides"])
    ck(cu.cuTensorMapEncodeTiled(tm, TYPES[p["data_type"]], r, C.c_void_p(addr), dims, strides,
                                 box, es, 0, SWIZZLE[p["swizzle"]],
                                 L2[p["l2_promotion"]] if l2 is None else l2, 0),
       "cuTensorMapEncodeTiled")
    return tm


def launch(fn, grid, block, smem, params):
    if smem:
        ck(cu.cuFuncSetAttribute(fn, 8, smem), "cuFuncSetAttribute(max dynamic smem)")
    ptrs = (C.c_void_p * len(params))(*[C.cast(x, C.c_void_p) for x in params])
    ck(cu.cuLaunchKernel(fn, *grid, *block, smem, None, ptrs, None), "cuLaunchKernel")
    ck(cu.cuCtxSynchronize(), "cuCtxSynchronize")


def run_corpus(out_dir, man_path, cc):
    base = man_path[:-5]
    man = json.load(open(man_path))
    arch = int(man["arch"][3:].rstrip("a"))
    if man["arch"] != f"sm_{cc[0]}{cc[1]}a" and not (not man["arch"].endswith("a") and
                                                      arch <= 10 * cc[0] + cc[1]):
        return f"{os.path.basename(base)}: skip ({man['arch']} on sm_{cc[0]}{cc[1]})"
    seq = man.get("launches")
    launches = seq or [man]  # a sequence of launches over the same buffers, or one
    if any(L["cluster"] != [1, 1, 1] for L in launches):
        return f"{os.path.basename(base)}: skip (cluster launch not in this runner)"
    data = np.load(base + ".npz")
    host = {b["name"]: (data[b["name"]].copy() if b["name"] in man["inputs"]
                        else np.zeros(b["shape"], b["dtype"])) for b in man["buffers"]}
    dev = {n: alloc(a) for n, a in host.items()}
    for b in man["buffers"]:  # a table of addresses (sim.DeviceTable): each field's byte offset
        for f in b.get("pointers", []):  # into its buffer, plus that buffer's device address
            words = host[b["name"]].view(np.uint64).reshape(-1)
            words[f["offset"] // 8] += np.uint64(dev[f["buffer"]])
        if b.get("pointers"):
            a = host[b["name"]]
            ck(cu.cuMemcpyHtoD_v2(C.c_uint64(dev[b["name"]]), a.ctypes.data_as(C.c_void_p), a.nbytes),
               "cuMemcpyHtoD")
    mod = load(base)
    if seq:  # each launch in order, as the host function launches them on one stream
        notes = []
        for L in seq:
            params, _ = arguments(L, dev, notes)
            launch(function(mod, L["kernel"]), L["grid"], L["block"], L["dynamic_smem"],
                   [C.pointer(x) if isinstance(x, C.c_uint64) else x for x in params])
        outs = {n: fetch(dev[n], host[n]) for n in man["outputs"]}
        return finish(out_dir, base, man, data, outs, dev, notes)
    fn = function(mod, man["kernel"])
    params, notes = arguments(man, dev, [])
    launch(fn, man["grid"], man["block"], man["dynamic_smem"],
           [C.pointer(x) if isinstance(x, C.c_uint64) else x for x in params])
    outs = {n: fetch(dev[n], host[n]) for n in man["outputs"]}
    # again with the maps the DSL's host code would pass: its own inline words, address put in
    dsl, k = [], 0
    for p, prm in zip(man["params"], params):
        if p["kind"] != "tensor_map":
            dsl.append(prm)
            continue
        words = [0 if w is None else int(w, 16) for w in man["descriptor_words"][k]]
        words[0] = ((dev[p["buffer"]] + p.get("offset", 0)) // 16 & (2**53 - 1)) << 4
        dsl.append((C.c_uint64 * 16)(*words))
        k += 1
    if not any(w for ws in man["descriptor_words"] for w in ws):  # no inline words to compare
        dsl = None
    for n in (man["outputs"] if dsl else []):
        ck(cu.cuMemcpyHtoD_v2(C.c_uint64(dev[n]), host[n].ctypes.data_as(C.c_void_p),
                              host[n].nbytes), "cuMemcpyHtoD")
    if dsl:
        launch(fn, man["grid"], man["block"], man["dynamic_smem"],
               [C.pointer(x) if isinstance(x, C.c_uint64) else x for x in dsl])
        same = all(np.array_equal(fetch(dev[n], host[n]).view(np.uint8), outs[n].view(np.uint8))
                   for n in man["outputs"])
        notes.append(f"with the DSL's own map words: "
                     f"{'same outputs' if same else 'DIFFERENT outputs'}")
    return finish(out_dir, base, man, data, outs, dev, notes)


def function(mod, name):
    fn = C.c_void_p()
    ck(cu.cuModuleGetFunction(C.byref(fn), mod, name.encode()), "cuModuleGetFunction")
    return fn


def arguments(launch, dev, notes):
    """The kernel arguments of one launch over the device buffers ``dev``; each tensor map made
    by the driver and compared with the DSL's inline words (a note per map)."""
    params, k = [], 0
    for p in launch["params"]:
        if p["kind"] == "tensor_map":
            addr = dev[p["buffer"]] + p.get("offset", 0)  # a map over a sub-tensor: its offset
            tm = encode(p, addr)
            want = [None if w is None else int(w, 16) for w in launch["descriptor_words"][k]]
            if all(w is None for w in want):  # a map the host encodes at launch (Triton's)
                notes.append(f"map {k} ({p['buffer']}): encoded here, as Triton's launcher does")
                params.append(tm)
                k += 1
                continue
            want[0] = (addr // 16 & (2**53 - 1)) << 4
            got = list(tm)
            # a word the host computes at run time (a run-time shape) is unknown: not compared
            agree = lambda ws: all(w is None or g == w for g, w in zip(ws, want))
            same = agree(got)
            if not same:  # which L2 promotion the DSL's inline encoding matches
                hits = [name for name, v in L2.items() if agree(list(encode(p, addr, v)))]
                diff = [i for i in range(16) if want[i] is not None and got[i] != want[i]]
                notes.append(f"map {k} ({p['buffer']}): words {diff} differ from the DSL's "
                             f"(driver {[hex(got[i]) for i in diff]} vs DSL "
                             f"{[hex(want[i]) for i in diff]}); L2 promotion matching: {hits}")
            else:
                notes.append(f"map {k} ({p['buffer']}): = DSL's words")
            params.append(tm)
            k += 1
        elif p["kind"] == "buffer":  # a global pointer: the buffer's device address
            params.append(C.c_uint64(dev[p["buffer"]]))
        else:  # bytes, or a struct whose pointer fields get the buffers' device addresses
            b = bytearray.fromhex(p["value"])
            for f in p.get("pointers", []):  # the field holds a byte offset into its buffer
                o = f["offset"]
                inner = int.from_bytes(b[o:o + 8], "little")
                b[o:o + 8] = (dev[f["buffer"]] + inner).to_bytes(8, "little")
            params.append((C.c_uint8 * len(b)).from_buffer_copy(bytes(b)))
    return params, notes


def finish(out_dir, base, man, data, outs, dev, notes):
    """Save the outputs, compare them with the references, free the buffers: the kernel's line."""
    np.savez_compressed(os.path.join(out_dir, os.path.basename(base) + ".out.npz"), **outs)
    res = []
    for n in man["outputs"]:
        ref = data[f"ref_{n}"]
        eq = np.array_equal(outs[n].view(np.uint8), ref.view(np.uint8))
        tol = man.get("tolerance")
        if tol and "outputs" in tol:  # one tolerance per output
            tol = tol["outputs"].get(n)
        if any(b["name"] == n and b.get("element") for b in man["buffers"]):
            tol = None  # codes of a narrow float: compared bit for bit here (run_corpus decodes)
        if eq or not tol:
            res.append(f"{n}: {'match' if eq else 'MISMATCH'} "
                       f"({int((outs[n] != ref).sum())} of {ref.size} differ)")
            continue
        atol = tol.get("atol", 0.0) * (float(np.abs(data[tol["atol_from"]].astype(np.float64))
                                             .max()) if tol.get("atol_from") else 1.0)
        err = np.abs(outs[n].astype(np.float64) - ref.astype(np.float64))
        ok = bool(np.all(err <= atol + tol.get("rtol", 0.0) * np.abs(ref.astype(np.float64))))
        res.append(f"{n}: {'within tolerance' if ok else 'MISMATCH'} (max error {err.max():.3g})")
    for v in dev.values():
        cu.cuMemFree_v2(C.c_uint64(v))
    return f"{os.path.basename(base)}: " + "; ".join(res + notes)


def run_matrix(out_dir, ptx_path):
    """A one-warp ld/stmatrix kernel k(in, out): its out bytes saved for the tile-sim comparison."""
    base = ptx_path[:-4]
    inp = np.fromfile(base + ".in.bin", np.uint8)
    out = np.zeros(int(open(base + ".outbytes").read()), np.uint8)
    din, dout = alloc(inp), alloc(out)
    mod = load(base)
    fn = C.c_void_p()
    ck(cu.cuModuleGetFunction(C.byref(fn), mod, b"k"), "cuModuleGetFunction")
    a, b = C.c_uint64(din), C.c_uint64(dout)
    launch(fn, (1, 1, 1), (32, 1, 1), 0, [C.pointer(a), C.pointer(b)])
    got = fetch(dout, out)
    got.tofile(os.path.join(out_dir, os.path.basename(base) + ".out.bin"))
    return got


def one(out_dir, man_path):
    """One kernel's line (the child process of main)."""
    _, cc = init()
    try:
        print(run_corpus(out_dir, man_path, cc))
    except Exception as e:  # noqa: BLE001 - reported on the kernel's line
        print(f"{os.path.basename(man_path)[:-5]}: ERROR {e}")


def main():
    if sys.argv[1] == "--one":
        return one(sys.argv[2], sys.argv[3])
    out_dir, dirs = sys.argv[1], sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    name, cc = init()
    print(f"device: {name}, sm_{cc[0]}{cc[1]}")
    bad = 0
    for d in dirs:
        for m in sorted(glob.glob(os.path.join(d, "*.json"))):
            if os.path.basename(m) == "MANIFEST.json":
                continue
            # each kernel in a process of its own: a fault (CUDA error 700) poisons its context
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", out_dir, m],
                               capture_output=True, text=True)
            line = (p.stdout.strip().splitlines() or [""])[-1]
            if p.returncode or not line:
                line = f"{os.path.basename(m)[:-5]}: ERROR {(p.stderr.strip().splitlines() or ['?'])[-1]}"
            bad += "MISMATCH" in line or "ERROR" in line
            print(line, flush=True)
        mats = sorted(glob.glob(os.path.join(d, "matrix_*.ptx")))
        outs = {}
        for p in mats:
            try:
                outs[os.path.basename(p)[:-4]] = run_matrix(out_dir, p)
            except Exception as e:
                print(f"{os.path.basename(p)}: ERROR {e}")
                bad += 1
        if outs:
            np.savez_compressed(os.path.join(out_dir, "matrix.out.npz"), **outs)
            print(f"matrix kernels run: {len(outs)} of {len(mats)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
