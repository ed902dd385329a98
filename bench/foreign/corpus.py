"""Run a foreign-corpus kernel on tile-sim from its manifest (bench/foreign/make_corpus.py).

    run(folder, name, strict=False) -> (outputs, references, SimResult)

The arguments are made from the manifest alone: a ``bytes`` parameter (a by-value struct) binds its recorded bytes,
a ``struct`` parameter its bytes with its pointer fields bound to buffers (``sim.ByValue``),
a ``tensor_map`` parameter a :class:`tile_mlir.sim.TensorMap` of its recorded
cuTensorMapEncodeTiled arguments over its buffer's array (inputs from ``<name>.npz``, outputs
zeroed). test/python/sim/test_foreign_corpus.py and bench/foreign/run_corpus.py share it.
"""
from __future__ import annotations

import json
import os

import numpy as np


def names(folder):
    """The kernels of a corpus folder: each ``<name>.json`` but MANIFEST.json (corpus_manifest.py)."""
    return sorted(f[:-5] for f in os.listdir(folder) if f.endswith(".json") and f != "MANIFEST.json")


def load(folder, name):
    with open(os.path.join(folder, f"{name}.json")) as f:
        man = json.load(f)
    with open(os.path.join(folder, f"{name}.ptx")) as f:
        ptx = f.read()
    data = np.load(os.path.join(folder, f"{name}.npz"))
    return man, ptx, data


def arrays(man, data):
    """The buffers as run_ptx takes them: arrays, and a device table of addresses (a buffer with
    ``pointers``: byte offset -> buffer) as a ``sim.DeviceTable`` over the other arrays."""
    from tile_mlir.sim import DeviceTable
    out = {}
    for b in man["buffers"]:
        out[b["name"]] = (data[b["name"]].copy() if b["name"] in man["inputs"]
                          else np.zeros(b["shape"], b["dtype"]))
    for b in man["buffers"]:
        if b.get("pointers"):
            out[b["name"]] = DeviceTable(out[b["name"]].tobytes(),
                                         {p["offset"]: out[p["buffer"]] for p in b["pointers"]})
    return out


def compare(man, name, out, ref, data):
    """(matches, how): bit for bit, or within the manifest's stated tolerance (``atol`` times
    max|``atol_from``| plus ``rtol`` times |reference|) for a kernel of approximate math."""
    tol = man.get("tolerance")
    if not tol:
        eq = np.array_equal(out.view(np.uint8), ref.view(np.uint8))
        return eq, "bit for bit" if eq else f"{int((out != ref).sum())} of {out.size} differ"
    atol = tol.get("atol", 0.0)
    if tol.get("atol_from"):
        atol *= float(np.abs(data[tol["atol_from"]].astype(np.float64)).max())
    err = np.abs(out.astype(np.float64) - ref.astype(np.float64))
    bound = atol + tol.get("rtol", 0.0) * np.abs(ref.astype(np.float64))
    ok = bool(np.all(err <= bound)) and not np.isnan(out).any()
    return ok, f"max error {err.max():.3g} (bound {bound.max():.3g})"


def run(folder, name, *, strict=False, **kw):
    from tile_mlir.sim import ByValue, TensorMap, run_ptx
    man, ptx, data = load(folder, name)
    bufs = arrays(man, data)
    args = []
    for p in man["params"]:
        if p["kind"] == "buffer":  # a global pointer to the buffer's array
            args.append(bufs[p["buffer"]])
        elif p["kind"] == "bytes":  # a by-value struct: its bytes, little-endian
            args.append(int.from_bytes(bytes.fromhex(p["value"]), "little"))
        elif p["kind"] == "struct":  # a by-value struct with pointer fields
            args.append(ByValue(bytes.fromhex(p["value"]),
                                {f["offset"]: bufs[f["buffer"]] for f in p["pointers"]}))
        elif p["kind"] == "tensor_map":
            args.append(TensorMap(p["data_type"], bufs[p["buffer"]], p["global_dim"],
                                  p["global_strides"], p["box_dim"], p["element_strides"],
                                  p["interleave"], p["swizzle"], p["l2_promotion"],
                                  p["oob_fill"]))
        else:
            raise ValueError(f"{name}: parameter kind {p['kind']!r}")
    res = run_ptx(ptx, man["kernel"], args, grid=man["grid"], block=man["block"],
                  cluster=man["cluster"], dynamic_smem=man["dynamic_smem"], strict=strict, **kw)
    refs = {n: data[f"ref_{n}"] for n in man["outputs"]}
    return {n: bufs[n] for n in man["outputs"]}, refs, res
