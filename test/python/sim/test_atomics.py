"""atom / red of every operation, type, vector form and state space: literal values worked out from
the PTX ISA's definitions, contention from many threads, and the forms the ISA does not define
refused (each kernel assembled by ptxas)."""

import struct

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx

HEAD = ".version 8.8\n.target sm_90a\n.address_size 64\n"
REGS = ("\t.reg .pred %p<4>;\n\t.reg .b16 %h<8>;\n\t.reg .b32 %r<24>;\n\t.reg .b64 %rd<16>;\n"
        "\t.reg .f32 %f<12>;\n\t.reg .f64 %fd<4>;\n\t.reg .b128 %q<4>;\n")


def kernel(body, smem=False):
    return (HEAD + (".shared .align 16 .b8 sbuf[64];\n" if smem else "") +
            ".visible .entry k(.param .u64 pbuf, .param .u64 pout)\n{\n" + REGS +
            "\tld.param.u64 %rd1, [pbuf];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
            "\tld.param.u64 %rd2, [pout];\n\tcvta.to.global.u64 %rd2, %rd2;\n"
            "\tmov.u32 %r1, %tid.x;\n" + body + "\tret;\n}\n")


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f16(x):
    return int(np.array([x], np.float16).view(np.uint16)[0])


def bf16(x):
    return f32(x) >> 16


# (type, op, memory word before, b, (c), memory after, d) -- one thread, .global
SCALAR = [
    ("u32", "add", 0xFFFFFFFF, 2, None, 1, 0xFFFFFFFF),
    ("s32", "min", 5, 0xFFFFFFFE, None, 0xFFFFFFFE, 5),  # -2 < 5
    ("u32", "min", 5, 0xFFFFFFFE, None, 5, 5),
    ("s32", "max", 0xFFFFFFF0, 3, None, 3, 0xFFFFFFF0),
    ("u32", "max", 7, 3, None, 7, 7),
    ("b32", "and", 0xF0F0, 0xFF00, None, 0xF000, 0xF0F0),
    ("b32", "or", 0xF0F0, 0x0F00, None, 0xFFF0, 0xF0F0),
    ("b32", "xor", 0xF0F0, 0xFFFF, None, 0x0F0F, 0xF0F0),
    ("b32", "exch", 0x1234, 0x5678, None, 0x5678, 0x1234),
    ("b32", "cas", 9, 9, 42, 42, 9),  # equal: swapped
    ("b32", "cas", 8, 9, 42, 8, 8),  # unequal: kept
    ("u32", "inc", 4, 4, None, 0, 4),  # old >= b: 0
    ("u32", "inc", 3, 4, None, 4, 3),
    ("u32", "dec", 0, 4, None, 4, 0),  # old == 0: b
    ("u32", "dec", 9, 4, None, 4, 9),  # old > b: b
    ("u32", "dec", 3, 4, None, 2, 3),
    ("f32", "add", f32(1.5), f32(2.25), None, f32(3.75), f32(1.5)),
    ("f32", "add", 0x00000010, f32(1.0), None, f32(1.0), 0x10),  # subnormal input flushed
    ("f32", "add", f32(2 ** -126), f32(-1.5 * 2 ** -126), None, 0x80000000, f32(2 ** -126)),
    ("f16", "add.noftz", f16(1.0), f16(2.0 ** -24), None, f16(1.0), f16(1.0)),  # ties to even
    ("f16", "add.noftz", 0x0001, 0x0001, None, 0x0002, 0x0001),  # subnormals kept
    ("bf16", "add.noftz", bf16(1.0), bf16(2.0 ** -8), None, bf16(1.0), bf16(1.0)),  # tie to even
    ("bf16", "add.noftz", bf16(1.0), bf16(3 * 2.0 ** -9), None, 0x3F81, bf16(1.0)),
    ("f16x2", "add.noftz", f16(1.0) | f16(-2.0) << 16, f16(0.5) | f16(0.25) << 16, None,
     f16(1.5) | f16(-1.75) << 16, f16(1.0) | f16(-2.0) << 16),
    ("bf16x2", "add.noftz", bf16(1.0) | bf16(4.0) << 16, bf16(1.0) | bf16(-8.0) << 16, None,
     bf16(2.0) | bf16(-4.0) << 16, bf16(1.0) | bf16(4.0) << 16),
]


def _reg(ty):
    return {"f16": "%h", "bf16": "%h", "b16": "%h", "f32": "%f", "f64": "%fd"}.get(ty, "%r")


@pytest.mark.parametrize("ty,op,before,b,c,after,d", SCALAR)
@pytest.mark.parametrize("form", ["atom", "red"])
def test_scalar_atom_literals(ty, op, before, b, c, after, d, form, assemble):
    if form == "red" and op in ("cas", "exch"):
        pytest.skip("red has no cas or exch")
    r = _reg(ty)
    n = 2 if r == "%h" else 4
    mov = "b16" if n == 2 else ("f32" if r == "%f" else "b32")
    lt = "b16" if n == 2 else ("f32" if r == "%f" else "b32")
    body = (f"\tmov.{mov} {r}1, {b:#x};\n" if r != "%f" else f"\tmov.b32 {r}1, {b:#x};\n")
    if c is not None:
        body += f"\tmov.b32 {r}2, {c:#x};\n"
    dst = f"{r}3, " if form == "atom" else ""
    args = f"{r}1" + (f", {r}2" if c is not None else "")
    body += f"\t{form}.global.{op}.{ty} {dst}[%rd1], {args};\n"
    if form == "atom":
        body += f"\tst.global.{lt} [%rd2], {r}3;\n"
    ptx = kernel(body)
    assemble(ptx, "sm_90a")
    dt = np.uint16 if n == 2 else np.uint32
    buf, out = np.array([before], dt), np.zeros(1, dt)
    run_ptx(ptx, "k", [buf, out], block=(1, 1, 1))
    assert int(buf[0]) == after, hex(int(buf[0]))
    if form == "atom":
        assert int(out[0]) == d


def test_64_bit_and_f64(assemble):
    body = ("\tmov.b64 %rd3, 0x7FFFFFFFFFFFFFFF;\n\tatom.global.add.u64 %rd4, [%rd1], 1;\n"
            "\tatom.global.min.s64 %rd5, [%rd1+8], %rd3;\n"
            "\tmov.f64 %fd1, 0d3FF8000000000000;\n\tatom.global.add.f64 %fd2, [%rd1+16], %fd1;\n"
            "\tmov.f64 %fd0, 0d0000000000000001;\n\tatom.global.add.f64 %fd3, [%rd1+24], %fd0;\n"
            "\tst.global.u64 [%rd2], %rd4;\n\tst.global.u64 [%rd2+8], %rd5;\n")
    ptx = kernel(body)
    assemble(ptx, "sm_90a")
    buf = np.array([0x7FFFFFFFFFFFFFFF, 0x8000000000000000, np.float64(2.0).view(np.uint64),
                    1], np.uint64)  # the last: the smallest f64 subnormal, not flushed
    out = np.zeros(2, np.uint64)
    run_ptx(ptx, "k", [buf, out], block=(1, 1, 1))
    assert buf[0] == 0x8000000000000000 and out[0] == 0x7FFFFFFFFFFFFFFF
    assert buf[1] == 0x8000000000000000  # min over s64: the most negative stays
    assert buf[2].view(np.float64) == 3.5
    assert buf[3] == 2  # two smallest subnormals: f64 adds keep subnormals


def test_b128_cas_and_exch(assemble):
    body = ("\tmov.b128 %q1, {%rd3, %rd4};\n\tmov.b128 %q2, {%rd5, %rd6};\n"
            "\tatom.global.cas.b128 %q3, [%rd1], %q1, %q2;\n"
            "\tmov.b128 {%rd7, %rd8}, %q3;\n\tst.global.v2.u64 [%rd2], {%rd7, %rd8};\n"
            "\tatom.global.exch.b128 %q3, [%rd1+16], %q2;\n"
            "\tmov.b128 {%rd7, %rd8}, %q3;\n\tst.global.v2.u64 [%rd2+16], {%rd7, %rd8};\n")
    init = ("\tmov.b64 %rd3, 0x1111;\n\tmov.b64 %rd4, 0x2222;\n"
            "\tmov.b64 %rd5, 0xAAAA;\n\tmov.b64 %rd6, 0xBBBB;\n")
    ptx = kernel(init + body)
    assemble(ptx, "sm_90a")
    buf = np.array([0x1111, 0x2222, 5, 6], np.uint64)
    out = np.zeros(4, np.uint64)
    run_ptx(ptx, "k", [buf, out], block=(1, 1, 1))
    assert buf.tolist() == [0xAAAA, 0xBBBB, 0xAAAA, 0xBBBB]
    assert out.tolist() == [0x1111, 0x2222, 5, 6]


def test_cas_b16(assemble):
    body = ("\tmov.b16 %h1, 7;\n\tmov.b16 %h2, 9;\n\tatom.global.cas.b16 %h3, [%rd1+2], %h1, %h2;\n"
            "\tst.global.b16 [%rd2], %h3;\n")
    ptx = kernel(body)
    assemble(ptx, "sm_90a")
    buf, out = np.array([7, 7], np.uint16), np.zeros(1, np.uint16)
    run_ptx(ptx, "k", [buf, out], block=(1, 1, 1))
    assert buf.tolist() == [7, 9] and out[0] == 7


@pytest.mark.parametrize("form", [
    ("add.v4.f32", "%f", 4, [f32(1.0), f32(2.0), f32(3.0), f32(4.0)], [f32(0.5)] * 4,
     [f32(1.5), f32(2.5), f32(3.5), f32(4.5)]),
    ("add.noftz.v2.f16x2", "%r", 2, [f16(1.0) | f16(2.0) << 16, f16(3.0)],
     [f16(1.0) | f16(1.0) << 16, f16(-3.0) | f16(1.0) << 16],
     [f16(2.0) | f16(3.0) << 16, f16(1.0) << 16]),
    ("max.noftz.v2.bf16x2", "%r", 2, [bf16(1.0) | bf16(-2.0) << 16, bf16(-0.0)],
     [bf16(0.5) | bf16(-1.0) << 16, bf16(0.0)],
     [bf16(1.0) | bf16(-1.0) << 16, bf16(0.0)]),  # -0 < +0
    ("min.noftz.v4.f16", "%h", 4, [f16(1.0), f16(-1.0), 0x7E00, f16(0.0)],
     [f16(2.0), f16(-2.0), f16(5.0), f16(-0.0)],
     [f16(1.0), f16(-2.0), f16(5.0), f16(-0.0)]),  # NaN: the other operand
])
def test_vector_atoms(form, assemble):
    q, r, n, before, b, after = form
    w = 16 if r == "%h" else 32
    movs = "".join(f"\tmov.b{w} {r}{i + 1}, {v:#x};\n" for i, v in enumerate(b))
    vb = "{" + ", ".join(f"{r}{i + 1}" for i in range(n)) + "}"
    vd = "{" + ", ".join(f"{r}{i + 5 if r != '%h' else i + 4}" for i in range(n)) + "}"
    regs = REGS.replace("%h<8>", "%h<12>")
    body = movs + f"\tatom.global.{q} {vd}, [%rd1], {vb};\n" + \
        f"\tst.global.v{n}.b{w} [%rd2], {vd};\n"
    ptx = kernel(body).replace(REGS, regs)
    assemble(ptx, "sm_90a")
    dt = np.uint16 if w == 16 else np.uint32
    buf, out = np.array(before, dt), np.zeros(n, dt)
    run_ptx(ptx, "k", [buf, out], block=(1, 1, 1))
    assert [int(x) for x in buf] == after
    assert [int(x) for x in out] == before


@pytest.mark.parametrize("space", ["global", "shared", "shared::cta", "generic"])
@pytest.mark.parametrize("scope", ["", ".cta", ".gpu", ".sys", ".acq_rel.gpu", ".relaxed.cluster"])
def test_contention_over_spaces_and_scopes(space, scope, assemble):
    """128 threads add their tid to one word and take a ticket: the sum is exact and the tickets
    a permutation."""
    if space.startswith("shared"):
        addr = ("\tmov.u32 %r2, sbuf;\n", f"\tatom{scope}.{space}.add.u32 %r3, [%r2], %r1;\n"
                f"\tatom{scope}.{space}.inc.u32 %r4, [%r2+4], 1000;\n\tbar.sync 0;\n"
                "\tld.shared.u32 %r5, [%r2];\n")
    elif space == "generic":
        addr = ("\tmov.u64 %rd3, sbuf;\n\tcvta.shared.u64 %rd3, %rd3;\n",
                f"\tatom{scope}.add.u32 %r3, [%rd3], %r1;\n"
                f"\tatom{scope}.inc.u32 %r4, [%rd3+4], 1000;\n\tbar.sync 0;\n"
                "\tld.u32 %r5, [%rd3];\n")
    else:
        addr = ("", f"\tatom{scope}.global.add.u32 %r3, [%rd1], %r1;\n"
                f"\tatom{scope}.global.inc.u32 %r4, [%rd1+4], 1000;\n\tbar.sync 0;\n"
                "\tld.global.u32 %r5, [%rd1];\n")
    body = addr[0] + addr[1] + ("\tmul.wide.u32 %rd4, %r1, 8;\n\tadd.u64 %rd4, %rd2, %rd4;\n"
                                "\tst.global.v2.u32 [%rd4], {%r4, %r5};\n")
    ptx = kernel(body, smem=True)
    assemble(ptx, "sm_90a")
    buf, out = np.zeros(2, np.uint32), np.zeros((128, 2), np.uint32)
    run_ptx(ptx, "k", [buf, out], block=(128, 1, 1))
    assert sorted(out[:, 0].tolist()) == list(range(128))
    assert (out[:, 1] == sum(range(128))).all()


def test_red_over_a_cluster_peer(assemble):
    """red.shared::cluster.add from both CTAs of a cluster into CTA 0's word."""
    body = ("\tmov.u32 %r2, sbuf;\n\tmapa.shared::cluster.u32 %r3, %r2, 0;\n"
            "\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n"
            "\tred.relaxed.cluster.shared::cluster.add.u32 [%r3], 1;\n"
            "\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;\n"
            "\tmov.u32 %r4, %cluster_ctarank;\n\tld.shared.u32 %r5, [%r2];\n"
            "\tsetp.eq.u32 %p1, %r1, 0;\n\tmul.wide.u32 %rd4, %r4, 4;\n\tadd.u64 %rd4, %rd2, %rd4;\n"
            "\t@%p1 st.global.u32 [%rd4], %r5;\n")
    ptx = kernel(body, smem=True).replace("(.param .u64 pbuf, .param .u64 pout)",
                                          "(.param .u64 pbuf, .param .u64 pout) "
                                          ".reqnctapercluster 2, 1, 1")
    assemble(ptx, "sm_90a")
    out = np.zeros(2, np.uint32)
    run_ptx(ptx, "k", [np.zeros(1, np.uint32), out], grid=(2, 1, 1), block=(64, 1, 1))
    assert out.tolist() == [128, 0]


@pytest.mark.parametrize("inst,why", [
    ("atom.global.add.b32 %r3, [%rd1], %r1", "typed operand"),
    ("atom.global.inc.u64 %rd3, [%rd1], %rd4", "takes .u32"),
    ("atom.global.add.f16 %h3, [%rd1], %h1", "add.noftz"),
    ("atom.global.min.f16x2 %r3, [%rd1], %r1", "16-bit float forms"),
    ("atom.global.add.b128 %q3, [%rd1], %q1", "takes .cas or .exch"),
    ("atom.shared.add.v2.f32 {%f1, %f2}, [%rd1], {%f3, %f4}", "for .global"),
    ("atom.global.max.v2.f32 {%f1, %f2}, [%rd1], {%f3, %f4}", "no vector form"),
    ("red.global.exch.b32 [%rd1], %r1", "red has no .exch"),
])
def test_forms_outside_the_isa_are_refused(inst, why):
    with pytest.raises(EmulationError, match=why):
        run_ptx(kernel(f"\t{inst};\n"), "k", [np.zeros(4, np.uint32), np.zeros(4, np.uint32)],
                block=(1, 1, 1))


def test_misaligned_atom_faults_at_its_line():
    ptx = kernel("\tatom.global.add.u32 %r3, [%rd1+2], 1;\n")
    line = next(i for i, l in enumerate(ptx.split("\n"), 1) if "atom." in l)
    with pytest.raises(EmulationError, match="misaligned") as e:
        run_ptx(ptx, "k", [np.zeros(4, np.uint32), np.zeros(4, np.uint32)], block=(1, 1, 1))
    assert e.value.line == line
