"""One campaign case = one configuration (a kernel) x one instance (a CTA): its input words, built
deterministically from the configuration's seed (wg_values.py), and its logical operands."""

from __future__ import annotations

import hashlib

import numpy as np

import wg_values as values
from wg_kernels import ELEM_BYTES, K_OF, a_fragment_position, a_in_registers, in_words, nregs, \
    operands

#: the accumulator type of each D type: value format of C
C_FORMAT = {"f32": "f32", "f16": "f16", "s32": "s32"}


def logical(cfg, inst: int):
    """(A 64 x K, B as N x K, C fragment words 128 x nregs, mode) of one instance."""
    mode = cfg["modes"][inst]
    seed = cfg["seed"] * 64 + inst
    k = K_OF[cfg["atype"]]
    a = values.operand(cfg["atype"], mode, 4 * seed, (64, k))
    b = values.operand(cfg["btype"], mode, 4 * seed + 1, (cfg["n"], k))
    nr = nregs(cfg)
    if cfg["dtype"] == "f16":
        h = values.operand("f16", mode, 4 * seed + 2, (128, 2 * nr))
        c = h[:, 0::2] | (h[:, 1::2] << 16)
    else:
        c = values.operand(C_FORMAT[cfg["dtype"]], mode, 4 * seed + 2, (128, nr))
    return a, b, c.astype(np.uint32), mode


def inputs(cfg, inst: int) -> np.ndarray:
    """The instance's input words (uint32): shared-memory image, then the C fragment."""
    a_op, b_op, boff, smem = operands(cfg)
    a, b, c, _ = logical(cfg, inst)
    image = values.junk(cfg["seed"] * 64 + inst + (1 << 20), smem)
    a_op.place(image, 0, a)
    b_op.place(image, boff, b)
    words = np.zeros(in_words(cfg), dtype=np.uint32)
    words[:smem // 4] = image.view("<u4")
    nc = c.size
    words[smem // 4:smem // 4 + nc] = c.reshape(-1)
    if a_in_registers(cfg):
        words[smem // 4 + nc:] = a_fragment_words(cfg["atype"], a).reshape(-1)
    return words


def a_fragment_words(atype: str, a: np.ndarray) -> np.ndarray:
    """128 x 4 register words of the A fragment of the 64 x K matrix ``a``."""
    eb = 8 * ELEM_BYTES[atype]
    per = 32 // eb
    out = np.zeros((128, 4), dtype=np.uint32)
    for t in range(128):
        for v in range(4 * per):
            r, k = a_fragment_position(atype, t, v)
            out[t, v // per] |= np.uint32(int(a[r, k]) << (eb * (v % per)))
    return out


def digest(out_words: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(out_words, dtype="<u4").tobytes()).hexdigest()[:24]
