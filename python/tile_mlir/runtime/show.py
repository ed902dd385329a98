"""What tile-run prints and draws of a kernel's buffers: NaN/inf-aware summaries and heat maps.

``summary`` gives shape, dtype, min / max / mean over the finite values with the count of NaN and inf
elements (no numpy RuntimeWarning for all-NaN data), and the sha256 of the bytes; with an expected array,
the largest absolute error and how many elements differ. ``plot`` draws each output, its expected value
and their difference as heat maps (matplotlib, the optional extra ``plot``: ``pip install
'tile_mlir[plot]'``).
"""
from __future__ import annotations

import hashlib

import numpy as np

from .dtypes import BIT_PATTERNS

__all__ = ["summary", "compare", "plot", "as_values", "require_matplotlib"]


def as_values(a: np.ndarray) -> np.ndarray:
    """The array as numbers numpy reduces: ml_dtypes' narrow floats as float32."""
    return a.astype(np.float32) if a.dtype.name in BIT_PATTERNS else a


def summary(name: str, a: np.ndarray, expected: np.ndarray | None = None) -> str:
    s = f"{name}: shape={tuple(a.shape)} dtype={a.dtype.name}"
    v = as_values(a)
    if a.size and v.dtype.kind in "biu":
        s += f" min={v.min()} max={v.max()} mean={float(v.astype(np.float64).mean()):.6g}"
    elif a.size and v.dtype.kind == "f":
        finite = np.isfinite(v)
        f = v[finite]
        if f.size:
            s += f" min={f.min()} max={f.max()} mean={float(f.astype(np.float64).mean()):.6g}"
        else:
            s += " min=- max=- mean=-"
        s += f" nan={int(np.isnan(v).sum())} inf={int(np.isinf(v).sum())}"
    s += f" sha256={hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]}"
    if expected is not None:
        s += " " + compare(a, expected)
    return s


def _error(a: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """|a - expected| in float64, 0 where both are NaN or the same inf, inf where only one is."""
    x = as_values(a).astype(np.float64)
    y = as_values(expected).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(x - y)
    same = (x == y) | (np.isnan(x) & np.isnan(y))
    err[same] = 0.0
    err[~same & ~np.isfinite(err)] = np.inf
    return err


def compare(a: np.ndarray, expected: np.ndarray) -> str:
    if a.shape != expected.shape:
        return f"expected: shape {tuple(expected.shape)} differs"
    err = _error(a, expected)
    bad = int((err != 0).sum())
    return f"vs expected: {bad} of {a.size} differ, max_abs_err={float(err.max()) if a.size else 0.0:.6g}"


def _grid(a: np.ndarray) -> np.ndarray:
    """A 2-D view for a heat map: leading dims folded into rows."""
    v = as_values(a).astype(np.float64)
    if v.ndim == 0:
        return v.reshape(1, 1)
    return v.reshape(1, -1) if v.ndim == 1 else v.reshape(-1, v.shape[-1])


def require_matplotlib():
    """matplotlib's pyplot on the file-only Agg backend; ImportError saying how to install it. tile-run
    calls it before compiling, so a missing extra costs no run."""
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only, no display
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError(f"--plot needs matplotlib ({e}): pip install 'tile_mlir[plot]'") from None
    return plt


def plot(path: str, arrays: dict[str, np.ndarray], expected: dict[str, np.ndarray]) -> None:
    """Write a figure to ``path``: one row per output (output, expected, |error| when expected)."""
    plt = require_matplotlib()
    rows = list(arrays)
    cols = 3 if any(n in expected for n in rows) else 1
    fig, axes = plt.subplots(len(rows), cols, figsize=(4.5 * cols, 3.5 * len(rows)), squeeze=False)
    for r, name in enumerate(rows):
        panels = [(name, _grid(arrays[name]))]
        if name in expected:
            panels += [(f"{name} expected", _grid(expected[name])),
                       (f"|{name} - expected|", _grid(_error(arrays[name], expected[name])))]
        for c in range(cols):
            ax = axes[r][c]
            if c >= len(panels):
                ax.axis("off")
                continue
            title, data = panels[c]
            im = ax.imshow(np.where(np.isfinite(data), data, np.nan), aspect="auto", interpolation="nearest",
                           cmap="viridis")
            ax.set_title(title)
            fig.colorbar(im, ax=ax)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
