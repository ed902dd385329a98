"""The TMA family of the differential fuzzer (bench/fuzz.py; the hook: /tmp/coord/fuzz.md): random TMA loads
(bench/kernels.py:tma_kernel) compiled for sm_90a, run on tile-sim through the runtime, compared with numpy;
and invalid ones the verifier or the `tma` variant must reject by name (docs/tma.md §2, §3).

Valid by construction: elements of 1, 2, 4 or 8 bytes; rank 2 to 4; swizzle none / 32B / 64B / 128B with
inner box rows of 16 B up to the span (narrower rows too); boxes of up to 64 per outer dim; tensors up to
twice the box; the inner start on 16 bytes; in about a third a box that crosses the tensor's upper edge in
one dim (read back with tile.copy: the zero fill shows); otherwise read back by a TMA store or by tile.copy
(ld.shared through the swizzled layout).
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))

from kernels import ELEM_BYTES, SWIZZLE_SPAN, tma_kernel  # noqa: E402

__all__ = ["INVALID_KINDS", "INVALID_CHECK", "CHECK_RE", "random_case", "run_case", "label"]

# the verifier's check at tile.tensor_map, or the variant's decline
CHECK_RE = re.compile(r"(?:'tile\.tensor_map' op |tma: declined: )([\w-]+)")
INVALID_KINDS = ("inner_start", "box_over_256", "row_over_span", "row_not_16B", "stride_not_16B")
INVALID_CHECK = {"inner_start": "coordinate", "box_over_256": "tensor-map-box", "row_over_span": "tensor-map-swizzle",
                 "row_not_16B": "tensor-map-box", "stride_not_16B": "tensor-map-stride"}
ELEMS = {1: "ui8", 2: "bf16", 4: "f32", 8: "f64"}
NUMPY = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


@dataclass(frozen=True)
class TmaCase:
    elem: str
    shape: tuple
    box: tuple
    offset: tuple
    swizzle: str | None
    readback: str

    def __str__(self) -> str:
        return (f"tma {self.elem} shape {list(self.shape)} box {list(self.box)} at {list(self.offset)} "
                f"swizzle {self.swizzle or 'none'} readback {self.readback}")


def random_case(ch, invalid: str | None, idx: int) -> TmaCase:
    eb = ch.pick((1, 2, 4, 8))
    swizzle = ch.pick((None, "32B", "64B", "128B"))
    if invalid in ("row_not_16B", "stride_not_16B"):
        eb, swizzle = (2, None) if invalid == "row_not_16B" else (1, None)
    q = 16 // eb  # elements of a 16-byte chunk
    inner = q * ch.int(1, (SWIZZLE_SPAN[swizzle] or 64) // 16)  # the inner box row: 16 B up to the span
    if invalid == "row_over_span":
        swizzle = ch.pick(("32B", "64B"))
        inner = SWIZZLE_SPAN[swizzle] // eb + q
    rank = ch.int(2, 4)
    box = [ch.int(1, 64 if rank == 2 else 8) for _ in range(rank - 1)] + [inner]
    shape = [b + ch.int(0, b) for b in box[:-1]] + [inner + q * ch.int(0, 4)]  # rows of whole chunks
    if invalid == "box_over_256":
        box[0] = ch.int(257, 300)
        shape[0] = box[0]
    if invalid == "row_not_16B":
        box[-1], shape[-1] = ch.pick((4, 12)), 64  # 8 or 24 bytes
    if invalid == "stride_not_16B":
        box[-1], shape[-1] = 16, 24  # 24-byte tensor rows
    offset = [ch.int(0, s - b) for s, b in zip(shape[:-1], box[:-1])] + [q * ch.int(0, (shape[-1] - box[-1]) // q)]
    if invalid == "inner_start":
        offset[-1] = 1  # 1 x element bytes: never a multiple of 16
        shape[-1] = max(shape[-1], box[-1] + q)
    cross = invalid is None and ch.bool(1 / 3)
    if cross:  # the box past the tensor's upper edge in one dim
        d = ch.int(0, rank - 1)
        if d < rank - 1:
            offset[d] = shape[d] - ch.int(1, box[d])
        elif box[-1] > q:
            offset[-1] = shape[-1] - q  # one chunk inside
    edge = any(o + b > n for o, b, n in zip(offset, box, shape))
    readback = "copy" if edge or ch.bool() else "tma"  # (a TMA store writes whole boxes)
    return TmaCase(ELEMS[eb], tuple(shape), tuple(box), tuple(offset), swizzle, readback)


class Outcome:
    def __init__(self, got, want):
        self.got, self.want = got, want

    def mismatches(self) -> list[str]:
        if np.array_equal(self.got, self.want):
            return []
        bad = np.argwhere(self.got != self.want)
        return [f"{len(bad)} of {self.want.size} elements differ, first at {tuple(int(v) for v in bad[0])}"]


def run_case(case: TmaCase, *, seed: int, ptxas_exe: str | None) -> Outcome:
    """Compile (raises TileError when declined), assemble (ptxas sm_90a), run on tile-sim, compare."""
    import tile_mlir
    from e2e_kernels import ptxas

    text = tma_kernel("tma_fuzz", elem=case.elem, shape=case.shape, box=case.box, offset=case.offset,
                      swizzle=case.swizzle, readback=case.readback)
    art = tile_mlir.compile(text, arch="sm_90a")
    if ptxas_exe:
        ptxas(art.ptx, ptxas_exe, "sm_90a")
    raw = NUMPY[ELEM_BYTES[case.elem]]
    rng = np.random.default_rng(seed)
    a = rng.integers(1, np.iinfo(raw).max, size=case.shape, dtype=raw)
    out = np.zeros(art.params[1].shape, raw)
    view = {"ui8": np.uint8, "f32": np.float32, "f64": np.float64}.get(case.elem)
    if view is None:
        import ml_dtypes

        view = ml_dtypes.bfloat16
    tile_mlir.jit(art, backend="sim")(a.view(view), out.view(view))
    region = tuple(slice(o, o + b) for o, b in zip(case.offset, case.box))
    if case.readback == "tma":
        want = np.zeros_like(a)
        want[region] = a[region]
    else:
        want = np.zeros(case.box, raw)
        got = a[region]
        want[tuple(slice(0, n) for n in got.shape)] = got
    return Outcome(out, want)


def label(case: TmaCase, outcome) -> str:
    edge = any(o + b > s for o, b, s in zip(case.offset, case.box, case.shape))
    return f"tma {len(case.box)}d {case.swizzle or 'none'}{' edge' if edge else ''} {case.readback}"
