"""shfl.sync, vote.sync, match.sync, redux.sync, elect.sync and activemask against the PTX ISA's
definitions, written out here per lane (each kernel assembled by ptxas)."""

import struct

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx

HEAD = ".version 8.8\n.target {t}\n.address_size 64\n"


def kernel(body, target="sm_100a", nout=1):
    return (HEAD.format(t=target) +
            ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
            "\t.reg .pred %p<4>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n\t.reg .f32 %f<4>;\n"
            "\tld.param.u64 %rd1, [pin];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
            "\tld.param.u64 %rd2, [pout];\n\tcvta.to.global.u64 %rd2, %rd2;\n"
            "\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.u64 %rd4, %rd1, %rd3;\n"
            f"\tmul.wide.u32 %rd5, %r1, {4 * nout};\n\tadd.u64 %rd5, %rd2, %rd5;\n"
            "\tld.global.u32 %r2, [%rd4];\n" + body + "\tret;\n}\n")


def run(body, vals, nout=1, target="sm_100a", n=32):
    out = np.zeros((n, nout), np.uint32)
    run_ptx(kernel(body, target, nout), "k", [np.asarray(vals, np.uint32), out], block=(n, 1, 1))
    return out


def shfl_ref(mode, vals, b, c):
    """The ISA's pseudocode of shfl.sync, per lane: (value, predicate)."""
    out = []
    seg, clamp = (c >> 8) & 0x1F, c & 0x1F
    for lane in range(32):
        maxl = (lane & seg) | (clamp & ~seg)
        minl = lane & seg
        if mode == "up":
            j, ok = lane - b, lane - b >= maxl
        elif mode == "down":
            j, ok = lane + b, lane + b <= maxl
        elif mode == "bfly":
            j, ok = lane ^ b, (lane ^ b) <= maxl
        else:
            j = minl | (b & ~seg & 0x1F)
            ok = j <= maxl
        out.append((vals[j if ok else lane], int(ok)))
    return out


@pytest.mark.parametrize("mode,b,c", [("up", 1, 0), ("up", 3, 0x0), ("down", 1, 0x1F),
                                      ("down", 5, 0x1F), ("bfly", 1, 0x1F), ("bfly", 16, 0x1F),
                                      ("idx", 7, 0x1F), ("idx", 3, 0x181F), ("down", 2, 0x181F),
                                      ("up", 2, 0x1800), ("bfly", 4, 0x1807)])
def test_shfl_sync(mode, b, c, assemble):
    body = (f"\tshfl.sync.{mode}.b32 %r3|%p1, %r2, {b}, {c}, -1;\n\tselp.u32 %r4, 1, 0, %p1;\n"
            "\tst.global.u32 [%rd5], %r3;\n\tst.global.u32 [%rd5+4], %r4;\n")
    assemble(kernel(body, nout=2))
    vals = [0x1000 + 17 * i for i in range(32)]
    got = run(body, vals, 2)
    want = shfl_ref(mode, vals, b, c)
    assert [tuple(map(int, r)) for r in got] == want


def test_shfl_reading_a_lane_outside_the_mask_is_an_error():
    body = ("\tshfl.sync.idx.b32 %r3, %r2, 20, 0x1F, 0xFFFF;\n\tst.global.u32 [%rd5], %r3;\n")
    with pytest.raises(EmulationError, match="not in the member mask"):
        run(body, range(32), n=16)


@pytest.mark.parametrize("mode", ["all", "any", "uni", "ballot"])
@pytest.mark.parametrize("pattern", ["none", "one", "all", "half"])
def test_vote_sync(mode, pattern, assemble):
    pred = {"none": [0] * 32, "one": [int(i == 9) for i in range(32)], "all": [1] * 32,
            "half": [i % 2 for i in range(32)]}[pattern]
    if mode == "ballot":
        body = "\tsetp.ne.u32 %p1, %r2, 0;\n\tvote.sync.ballot.b32 %r3, %p1, -1;\n"
    else:
        body = (f"\tsetp.ne.u32 %p1, %r2, 0;\n\tvote.sync.{mode}.pred %p2, %p1, -1;\n"
                "\tselp.u32 %r3, 1, 0, %p2;\n")
    body += "\tst.global.u32 [%rd5], %r3;\n"
    assemble(kernel(body))
    got = run(body, pred)[:, 0]
    want = {"all": int(all(pred)), "any": int(any(pred)),
            "uni": int(all(pred) or not any(pred)),
            "ballot": sum(1 << i for i, v in enumerate(pred) if v)}[mode]
    assert (got == want).all()


def test_match_sync_any_and_all(assemble):
    vals = [i % 3 for i in range(32)]
    body = ("\tmatch.sync.any.b32 %r3, %r2, -1;\n\tmatch.sync.all.b32 %r4|%p1, %r2, -1;\n"
            "\tselp.u32 %r5, 1, 0, %p1;\n\tand.b32 %r6, %r2, 0;\n"
            "\tmatch.sync.all.b32 %r7|%p2, %r6, 0x0000FFFF;\n\tselp.u32 %r8, 1, 0, %p2;\n"
            "\tst.global.u32 [%rd5], %r3;\n\tst.global.u32 [%rd5+4], %r4;\n"
            "\tst.global.u32 [%rd5+8], %r5;\n\tst.global.u32 [%rd5+12], %r7;\n"
            "\tst.global.u32 [%rd5+16], %r8;\n")
    ptx_body = body.replace("0x0000FFFF", "-1")  # every lane runs it: the member mask is all
    assemble(kernel(ptx_body, nout=5))
    got = run(ptx_body, vals, 5)
    for lane in range(32):
        assert got[lane, 0] == sum(1 << j for j in range(32) if vals[j] == vals[lane])
    assert (got[:, 1] == 0).all() and (got[:, 2] == 0).all()  # the values differ
    assert (got[:, 3] == 0xFFFFFFFF).all() and (got[:, 4] == 1).all()  # all zero: the mask


def test_match_sync_b64(assemble):
    body = ("\tcvt.u64.u32 %rd6, %r2;\n\tshl.b64 %rd6, %rd6, 32;\n"
            "\tmatch.sync.any.b64 %r3, %rd6, -1;\n\tst.global.u32 [%rd5], %r3;\n")
    assemble(kernel(body))
    vals = [i // 8 for i in range(32)]
    got = run(body, vals)[:, 0]
    assert [int(x) for x in got] == [0xFF << (8 * (i // 8)) for i in range(32)]


INT_REDUX = [("add", "u32"), ("add", "s32"), ("min", "u32"), ("min", "s32"), ("max", "u32"),
             ("max", "s32"), ("and", "b32"), ("or", "b32"), ("xor", "b32")]


@pytest.mark.parametrize("op,ty", INT_REDUX)
def test_redux_sync_integer(op, ty, assemble):
    rng = np.random.default_rng(7)
    vals = rng.integers(0, 1 << 32, 32, dtype=np.uint64).astype(np.uint32)
    vals[3] = 0x80000001
    body = f"\tredux.sync.{op}.{ty} %r3, %r2, -1;\n\tst.global.u32 [%rd5], %r3;\n"
    assemble(kernel(body))
    got = run(body, vals)[:, 0]
    s = vals.astype(np.int64) - ((vals.astype(np.int64) >> 31) << 32)
    u = vals.astype(np.int64)
    want = {"add": int(u.sum()) & 0xFFFFFFFF,
            "min": int(s.min() if ty == "s32" else u.min()) & 0xFFFFFFFF,
            "max": int(s.max() if ty == "s32" else u.max()) & 0xFFFFFFFF,
            "and": int(np.bitwise_and.reduce(u)), "or": int(np.bitwise_or.reduce(u)),
            "xor": int(np.bitwise_xor.reduce(u))}[op]
    assert (got == want).all()


def b(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


NAN = 0x7FC00001  # a NaN input with a payload: results are the canonical 0x7FFFFFFF


@pytest.mark.parametrize("op,mods,vals,want", [
    ("min", "", [b(3.0), b(-2.5), b(7.0)], b(-2.5)),
    ("max", "", [b(3.0), b(-2.5), b(7.0)], b(7.0)),
    ("min", ".abs", [b(3.0), b(-2.5), b(7.0)], b(2.5)),
    ("max", ".abs", [b(3.0), b(-9.5), b(7.0)], b(9.5)),
    ("min", "", [b(0.0), b(-0.0)], b(-0.0)),  # -0 is below +0
    ("max", "", [b(-0.0), b(0.0)], b(0.0)),
    ("min", "", [NAN, b(1.0)], b(1.0)),  # NaN ignored
    ("max", ".NaN", [NAN, b(1.0)], 0x7FFFFFFF),  # NaN propagated
    ("min", ".abs.NaN", [b(-4.0), NAN], 0x7FFFFFFF),
    ("max", "", [NAN, NAN], 0x7FFFFFFF),
])
def test_redux_sync_f32(op, mods, vals, want, assemble):
    full = (vals * 32)[:32]
    body = f"\tredux.sync.{op}{mods}.f32 %f1, %f2, -1;\n\tst.global.f32 [%rd5], %f1;\n"
    body = "\tmov.b32 %f2, %r2;\n" + body
    assemble(kernel(body))
    got = run(body, full)[:, 0]
    assert (got == want).all(), hex(int(got[0]))


def test_elect_and_activemask(assemble):
    body = ("\tsetp.ge.u32 %p3, %r1, 5;\n\t@!%p3 bra DONE;\n"
            "\telect.sync %r3|%p1, 0xFFFFFFE0;\n\tselp.u32 %r4, 1, 0, %p1;\n"
            "\tactivemask.b32 %r5;\n"
            "\tst.global.u32 [%rd5], %r3;\n\tst.global.u32 [%rd5+4], %r4;\n"
            "\tst.global.u32 [%rd5+8], %r5;\nDONE:\n")
    assemble(kernel(body, nout=3))
    got = run(body, range(32), 3)
    assert (got[5:, 0] == 5).all() and got[5:, 1].tolist() == [1] + [0] * 26
    assert (got[5:, 2] == 0xFFFFFFE0).all() and (got[:5] == 0).all()


def test_movmatrix_transposes_the_m8n8_fragment(assemble):
    """Thread T holds row T/4, columns 2(T%4), 2(T%4)+1 (low half first) of an 8x8 b16 matrix;
    after movmatrix it holds the same places of the transpose."""
    m = (np.arange(64).reshape(8, 8) * 257 + 3).astype(np.uint32)
    vals = [int(m[T // 4, 2 * (T % 4)]) | int(m[T // 4, 2 * (T % 4) + 1]) << 16 for T in range(32)]
    body = "\tmovmatrix.sync.aligned.m8n8.trans.b16 %r3, %r2;\n\tst.global.u32 [%rd5], %r3;\n"
    assemble(kernel(body))
    got = run(body, vals)[:, 0]
    t = m.T
    assert [int(x) for x in got] == [int(t[T // 4, 2 * (T % 4)]) | int(t[T // 4, 2 * (T % 4) + 1]) << 16
                                     for T in range(32)]
