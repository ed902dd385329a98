"""The two-input cvt forms on a GPU against tile-sim (docs/emulator.md A21). Run ON a GPU machine
(sm_89+; the H200 here): python3 bench/gpu/cvt_pairs.py [N]. Needs numpy and cupy; no MLIR.

For each form the epilogue emits (cvt.{rn,rz}.{bf16x2,f16x2}.f32, cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32)
one kernel converts N pairs of f32 bit patterns on the GPU; the same pairs go through tile-sim's model
(sim/handlers/cvt_pack.round_to). The patterns: the literal table of
test/python/sim/test_tcgen05_ldst_shapes.py, every class of special value (+-0, subnormals, the
largest finite, infinities, NaNs of both signs and several payloads), values next to the formats'
rounding ties and overflow thresholds, and random bits. Prints one line per form and every
disagreement (at most 20 per form); exits 1 on any.
"""
from __future__ import annotations

import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
from tile_mlir.sim.handlers.cvt_pack import round_to  # noqa: E402  (numpy only, no MLIR)

FORMS = [("bf16x2", "rn", "bf16", False), ("bf16x2", "rz", "bf16", False), ("f16x2", "rn", "f16", False),
         ("f16x2", "rz", "f16", False), ("e4m3x2", "rn.satfinite", "e4m3", True),
         ("e5m2x2", "rn.satfinite", "e5m2", True)]


def kernel(dtype: str, mods: str) -> str:
    bits = 16 if dtype.endswith("16x2") else 8
    reg, st = ("%r5", "st.global.u32") if bits == 16 else ("%rs1", "st.global.u16")
    return (".version 8.0\n.target sm_90a\n.address_size 64\n"
            ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pd, .param .u32 n)\n{\n"
            "\t.reg .pred %p<2>;\n\t.reg .b16 %rs<2>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<10>;\n"
            "\tld.param.u64 %rd1, [pa];\n\tld.param.u64 %rd2, [pb];\n\tld.param.u64 %rd3, [pd];\n"
            "\tld.param.u32 %r6, [n];\n\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ntid.x;\n\tmov.u32 %r3, %tid.x;\n"
            "\tmad.lo.u32 %r1, %r1, %r2, %r3;\n\tsetp.ge.u32 %p1, %r1, %r6;\n\t@%p1 bra DONE;\n"
            "\tmul.wide.u32 %rd4, %r1, 4;\n\tadd.s64 %rd5, %rd1, %rd4;\n\tadd.s64 %rd6, %rd2, %rd4;\n"
            "\tld.global.f32 %r2, [%rd5];\n\tld.global.f32 %r3, [%rd6];\n"
            f"\tcvt.{mods}.{dtype}.f32 {reg}, %r2, %r3;\n"
            f"\tmul.wide.u32 %rd7, %r1, {bits // 4};\n\tadd.s64 %rd8, %rd3, %rd7;\n\t{st} [%rd8], {reg};\n"
            "DONE:\n\tret;\n}\n")


def patterns(n: int) -> np.ndarray:
    f = lambda x: struct.unpack("<I", struct.pack("<f", x))[0]  # noqa: E731
    special = [0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000,
               0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF, 0xFFFFFFFF]
    near = []
    for x in (1.0, 1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, 1.0 + 2 ** -11, 1.0 + 2 ** -4, 1.0 + 3 * 2 ** -4,
              1.0 + 2 ** -3, 448.0, 464.0, 480.0, 57344.0, 61440.0, 65504.0, 65520.0, 2 ** -9, 2 ** -10,
              2 ** -16, 2 ** -17, 2 ** -24, 2 ** -25, 2 ** -133, 2 ** -134, 3.0e38):
        b = f(x)
        near += [b - 1, b, b + 1, b | 0x80000000]
    rng = np.random.default_rng(0)
    rand = rng.integers(0, 1 << 32, size=max(0, n - len(special) - len(near)), dtype=np.uint64)
    return np.concatenate([np.array(special + near, np.uint64), rand]).astype(np.uint32)


def main() -> int:
    import cupy as cp

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    a = patterns(n)
    b = np.roll(a, 7)
    bad_forms = 0
    for dtype, mods, fmt, sat in FORMS:
        path = f"/tmp/cvt_{dtype}_{mods}.ptx"
        with open(path, "w") as fh:
            fh.write(kernel(dtype, mods))
        fn = cp.RawModule(path=path).get_function("k")
        bits = 16 if fmt in ("bf16", "f16") else 8
        out = cp.zeros(len(a), cp.uint32 if bits == 16 else cp.uint16)
        fn(((len(a) + 255) // 256,), (256,), (cp.asarray(a), cp.asarray(b), out, np.uint32(len(a))))
        got = out.get().astype(np.int64)
        mode = mods.split(".")[0]
        to_f = lambda bits32: struct.unpack("<f", struct.pack("<I", int(bits32)))[0]  # noqa: E731
        want = np.array([(round_to(to_f(x), fmt, mode, sat) << bits) | round_to(to_f(y), fmt, mode, sat)
                         for x, y in zip(a.tolist(), b.tolist())], np.int64)
        diff = np.nonzero(got != want)[0]
        print(f"cvt.{mods}.{dtype}.f32: {len(a)} pairs, {len(diff)} disagreements")
        for i in diff[:20]:
            print(f"   a=0x{int(a[i]):08X} b=0x{int(b[i]):08X}: gpu 0x{int(got[i]):0{bits // 2}X} "
                  f"tile-sim 0x{int(want[i]):0{bits // 2}X}")
        bad_forms += bool(len(diff))
    return 1 if bad_forms else 0


if __name__ == "__main__":
    sys.exit(main())
