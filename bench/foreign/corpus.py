"""Run a foreign-corpus kernel on tile-sim from its manifest (bench/foreign/make_corpus.py).

    run(folder, name, strict=False) -> (outputs, references, SimResult)

The arguments are made from the manifest alone: a ``bytes`` parameter (a by-value struct) binds its recorded bytes,
a ``struct`` parameter its bytes with its pointer fields bound to buffers (``sim.ByValue``),
a ``tensor_map`` parameter a :class:`tile_mlir.sim.TensorMap` of its recorded
cuTensorMapEncodeTiled arguments over its buffer's array (inputs from ``<name>.npz``, outputs
zeroed). test/python/sim/test_foreign_corpus.py and bench/foreign/run_corpus.py share it.

A manifest with ``launches`` describes a sequence of launches over its one set of buffers (a host
function that launches several kernels: bench/foreign/launch_seq.py): each entry its PTX
``kernel``, ``params``, ``grid``, ``block``, ``cluster``, ``dynamic_smem`` and
``descriptor_words``; they run in order through ``sim.run_launches`` (each launch sees what the
ones before it stored), and the result joins their findings and steps.
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


def compare(man, name, out, ref, data, output=None):
    """(matches, how): bit for bit, or within the manifest's stated tolerance (``atol`` times
    max|``atol_from``| plus ``rtol`` times |reference|) for a kernel of approximate math; a
    tolerance with ``outputs`` states one per output (``output``: which one ``out`` is)."""
    tol = man.get("tolerance")
    if tol and "outputs" in tol:
        tol = tol["outputs"].get(output)
    element = next((b.get("element") for b in man["buffers"] if b["name"] == output), None)
    if element and tol:  # codes of a narrow float (e4m3): compared as the values they encode
        from blockscaled import decode
        out, ref = decode(element, out), decode(element, ref)
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


LAUNCH_FIELDS = ("kernel", "params", "grid", "block", "cluster", "dynamic_smem", "descriptor_words")


def launches(man):
    """The launches a manifest describes, in order: its ``launches``, or the one its top-level
    fields describe."""
    if "launches" in man:
        return man["launches"]
    return [{k: man[k] for k in LAUNCH_FIELDS if k in man}]


def arguments(name, launch, bufs):
    """run_ptx's arguments of one launch: each parameter bound to the shared buffers ``bufs``."""
    from tile_mlir.sim import ByValue, TensorMap
    args = []
    for p in launch["params"]:
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
                                  p["oob_fill"], offset=p.get("offset", 0)))
        else:
            raise ValueError(f"{name}: parameter kind {p['kind']!r}")
    return args


def run(folder, name, *, strict=False, preferred=False, **kw):
    """Run a kernel (or a sequence of launches) of the corpus: (outputs, references, result); a
    sequence's result is :class:`SequenceResult`. A launch with a ``preferred_cluster`` (CUDA's
    preferred-cluster attribute: the GPU runs each cluster in that shape where it fits, else in
    ``cluster`` shape) runs every cluster in ``cluster`` shape, or with ``preferred`` every one in
    the preferred shape: the two uniform schedules of the ones the hardware may choose.  A
    sequence explored (``explore=``, ``replay=``, ``systematic=``) gives the list of its launches'
    ExploreResults."""
    from tile_mlir.sim import run_launches
    man, ptx, data = load(folder, name)
    bufs = arrays(man, data)
    results = run_launches([_spec(ptx, name, L, bufs, preferred) for L in launches(man)],
                           strict=strict, **kw)
    if "launches" not in man:
        res = results[0]
    else:  # (explored, replayed or searched: each launch's ExploreResult, in order)
        res = results if {"explore", "replay", "systematic"} & kw.keys() else \
            SequenceResult(results)
    refs = {n: data[f"ref_{n}"] for n in man["outputs"]}
    return {n: bufs[n] for n in man["outputs"]}, refs, res


def run_one(folder, name, index, **kw):
    """Launch ``index`` of a kernel's launches alone, over fresh buffers (corpus_table.py decodes
    every entry of a sequence this way)."""
    from tile_mlir.sim import run_ptx
    man, ptx, data = load(folder, name)
    return run_ptx(**_spec(ptx, name, launches(man)[index], arrays(man, data)), **kw)


def _spec(ptx, name, L, bufs, preferred=False):
    """run_ptx's arguments of launch ``L`` over the buffers ``bufs``."""
    return dict(ptx=ptx, kernel=L["kernel"], args=arguments(name, L, bufs), grid=L["grid"],
                block=L["block"], dynamic_smem=L["dynamic_smem"],
                cluster=L.get("preferred_cluster", L["cluster"]) if preferred else L["cluster"])


class SequenceResult:
    """The results of a sequence of launches as one: ``findings`` of every launch (their lines
    are lines of the one PTX module), ``steps`` summed, ``launches`` each launch's SimResult."""

    def __init__(self, results):
        self.launches = results
        self.findings = [f for r in results for f in r.findings]
        self.steps = sum(r.steps for r in results)
        self.warnings = [w for r in results for w in r.warnings]
