"""autotune=True (docs/gemm-library.md §6): the heuristic's best candidates timed on the GPU once per (device,
dtype, shape class), the winner kept in `<cache dir>/gemm/tuned.json` for every later call and process.
"""
from __future__ import annotations

import dataclasses
import json
import os
import time

from ..runtime.cache import usable_dir
from ..runtime.device import current_device, synchronize
from ..runtime.memory import DeviceArray
from .call import GemmCall
from .heuristic import shape_class
from .kernels import kernel_dir
from .operands import Operands

__all__ = ["tuned", "TRIED"]

TRIED = 6  # candidates timed: the model's best, and the suite's 128 x 256 tile


def _path() -> str | None:
    folder = kernel_dir()
    return os.path.join(os.path.dirname(folder), "tuned.json") if folder else None


def _load(path) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def tuned(ops, sms: int, target):
    """The measured winner for ops' shape class on this device (timing it now if it is not on disk), among
    `target`'s configurations (targets.py)."""
    dev = current_device()
    key = "|".join([dev.name, str(sms), ops.dtype, "x".join(map(str, shape_class(ops.m, ops.n, ops.k)))]
                   + ([target.arch] if target.arch != "sm_90a" else []))
    fields = [f.name for f in dataclasses.fields(target.config)]
    path = _path()
    known = _load(path) if path else {}
    entry = known.get(key)
    if isinstance(entry, dict):
        try:
            return target.config(**{f: entry[f] for f in fields})
        except (KeyError, TypeError, ValueError):
            pass  # (an entry of another version: timed again)
    winner = _time_candidates(ops, sms, target)
    if path and usable_dir(os.path.dirname(os.path.dirname(path))):  # (the cache's root: private, ours)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        known = _load(path)
        known[key] = {f: getattr(winner, f) for f in fields}
        tmp = f"{path}.{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(known, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
    return winner


def _time_candidates(ops, sms: int, target, reps: int = 10):
    m, n, k = ops.m, ops.n, ops.k
    pool = sorted(target.candidates(m, n, k, ops.dtype), key=lambda c: target.estimate(c, m, n, k, sms))[:TRIED]
    pool = list(dict.fromkeys([target.choose(m, n, k, ops.dtype, sms), *pool, target.config(ops.dtype)]))
    if ops.lib != "torch":  # host arrays: time on device copies (staging would swamp the kernel)
        a, b = DeviceArray.from_host(ops.a), DeviceArray.from_host(ops.b)
        d = DeviceArray(ops.d.shape, "uint16")
        ops = Operands("device", a, b, d, d, m, ops.d.shape[1], k, ops.dtype)
    best = None
    for cfg in pool:
        call = GemmCall(ops, cfg, "gpu", sms)
        call()
        synchronize()
        t0 = time.perf_counter()
        for _ in range(reps):
            call()
        synchronize()
        t = (time.perf_counter() - t0) / reps
        if best is None or t < best[0]:
            best = (t, cfg)
    return best[1]
