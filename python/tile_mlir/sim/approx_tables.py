"""The measured tables of tile-sim's approximate-math models (docs/emulator.md §14).

Each table is the output of one special-function unit of an sm_90 GPU over that function's reduced
domain (for rcp the 2^23 mantissas of [1, 2), for ex2 the 2^23 fixed-point fractions, ...), stored
in ``data/approx_tables.npz`` as LZMA-compressed first differences: the outputs of neighbouring
inputs differ by a few units in the last place, so a table of 2^23 words takes ~150 KiB.

:func:`table` decodes one table on first use and keeps it, once as numpy and once per other array
module (cupy runs the same models on the GPU, bench/gpu/approx/check.py).
"""

from __future__ import annotations

import lzma
import os

import numpy as np

DATA = os.path.join(os.path.dirname(__file__), "data", "approx_tables.npz")


def encode(values: np.ndarray) -> dict[str, np.ndarray]:
    """uint16/uint32 table -> arrays of the stored form (inverse of :func:`_decode`)."""
    d = np.diff(values.astype(np.int64), prepend=np.int64(0))
    small = (d >= -127) & (d <= 127)
    idx = np.nonzero(~small)[0]
    blobs = {
        "d": np.where(small, d, -128).astype(np.int8).tobytes(),
        "i": np.diff(idx, prepend=0).astype(np.int32).tobytes(),
        "v": d[idx].astype(np.int64).tobytes(),
    }
    out = {k: np.frombuffer(lzma.compress(b, preset=9 | lzma.PRESET_EXTREME), np.uint8)
           for k, b in blobs.items()}
    out["dtype"] = np.frombuffer(np.dtype(values.dtype).str.encode(), np.uint8)
    return out


def _decode(z, name: str) -> np.ndarray:
    def blob(k, dt):
        return np.frombuffer(lzma.decompress(z[f"{name}.{k}"].tobytes()), dt)
    d = blob("d", np.int8).astype(np.int64)
    idx = np.cumsum(blob("i", np.int32).astype(np.int64))
    d[idx] = blob("v", np.int64)
    dtype = np.dtype(z[f"{name}.dtype"].tobytes().decode())
    return np.cumsum(d).astype(dtype)


SOURCES = [DATA]   # npz files searched in order (a measurement run adds its own first)
_decoded: dict[str, np.ndarray] = {}


def _numpy_table(name: str) -> np.ndarray:
    if name in _decoded:
        return _decoded[name]
    for path in SOURCES:
        with np.load(path) as z:
            if f"{name}.d" in z.files:
                t = _decode(z, name)
                t.setflags(write=False)
                _decoded[name] = t
                return t
    raise KeyError(f"no approximate-math table {name!r} in {', '.join(map(str, SOURCES))}")


_other: dict[tuple[str, str], object] = {}


def table(name: str, xp=np):
    """The table `name` as an array of module `xp` (numpy or cupy)."""
    t = _numpy_table(name)
    if xp is np:
        return t
    key = (name, xp.__name__)
    if key not in _other:
        _other[key] = xp.asarray(t)
    return _other[key]
