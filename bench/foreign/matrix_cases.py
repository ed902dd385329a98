"""One-warp ldmatrix / stmatrix kernels, every form, with what the PTX ISA says they produce.

``kernel(op, form)`` is PTX of ``k(in, out)`` (32 threads): the first 512 bytes of ``in`` go to
shared memory as 32 rows of 16 bytes; thread i gives the address of row ``perm(i) = (5i + 3) % 32``,
so the rows an instruction reads come from threads, not from consecutive memory.

* ldmatrix: each thread stores its destination registers at ``out[4 * n * T + 4 * k]``;
* stmatrix: thread T's register k is the word ``in[512 + 4 * (n * T + k)]``; the instruction
  stores into a zeroed 512-byte region, copied to ``out``.

``expected(op, form, inp)`` is the ISA's fragment description written out element by element
(a second statement of it, apart from tile_mlir.sim.handlers.matrix); ``arch(form)``: the 8-bit
forms are sm_100a, the .b16 ones run on sm_90a (the H200 checks those).
"""
from __future__ import annotations

import numpy as np

NBYTES = 1024


def forms(op):
    out = []
    for n in ("x1", "x2", "x4"):
        for tr in ("", ".trans"):
            out.append(f"m8n8.{n}{tr}.shared.b16")
    if op == "ld":
        out.append("m8n8.x4.b16")  # generic address
        for n in ("x1", "x2"):
            out.append(f"m16n16.{n}.trans.shared.b8")
            for f in ("b6x16_p32", "b4x16_p64"):
                out.append(f"m16n16.{n}.trans.shared.b8x16.{f}")
        for n in ("x1", "x2", "x4"):
            for f in ("b6x16_p32", "b4x16_p64"):
                out.append(f"m8n16.{n}.shared.b8x16.{f}")
    else:
        for n in ("x1", "x2", "x4"):
            out.append(f"m16n8.{n}.trans.shared.b8")
    return out


def nregs(form):
    n = {"x1": 1, "x2": 2, "x4": 4}[form.split(".")[1]]
    return 2 * n if form.startswith("m16n16") else n


def arch(form):
    return "sm_90a" if form.endswith("b16") else "sm_100a"


def perm(i):
    return (5 * i + 3) % 32


def kernel(op, form):
    n = nregs(form)
    regs = ", ".join(f"%r{20 + k}" for k in range(n))
    generic = ".shared" not in form
    addr = "%rd9" if generic else "%r14"
    head = f"""//
.version 8.8
.target {arch(form)}
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout)
{{
	.reg .b32 %r<40>;
	.reg .b64 %rd<12>;
	.shared .align 16 .b8 sm[512];
	.shared .align 16 .b8 sm2[512];
	ld.param.u64 %rd1, [pin];
	ld.param.u64 %rd2, [pout];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 4;
	cvt.u64.u32 %rd3, %r2;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.v4.u32 {{%r3, %r4, %r5, %r6}}, [%rd4];
	mov.u32 %r11, sm;
	add.u32 %r12, %r11, %r2;
	st.shared.v4.u32 [%r12], {{%r3, %r4, %r5, %r6}};
	mov.u32 %r15, sm2;
	add.u32 %r16, %r15, %r2;
	mov.u32 %r7, 0;
	st.shared.v4.u32 [%r16], {{%r7, %r7, %r7, %r7}};
	bar.warp.sync -1;
	mad.lo.u32 %r13, %r1, 5, 3;
	and.b32 %r13, %r13, 31;
	shl.b32 %r13, %r13, 4;
"""
    if op == "ld":
        body = "\tadd.u32 %r14, %r11, %r13;\n"
        if generic:
            body += "\tcvt.u64.u32 %rd8, %r14;\n\tcvta.shared.u64 %rd9, %rd8;\n"
        body += f"\tldmatrix.sync.aligned.{form} {{{regs}}}, [{addr}];\n"
        body += f"\tmul.lo.u32 %r17, %r1, {4 * n};\n\tcvt.u64.u32 %rd5, %r17;\n"
        body += "\tadd.s64 %rd6, %rd2, %rd5;\n"
        for k in range(n):
            body += f"\tst.global.u32 [%rd6+{4 * k}], %r{20 + k};\n"
    else:
        body = "\tadd.u32 %r14, %r15, %r13;\n"
        body += f"\tmul.lo.u32 %r17, %r1, {4 * n};\n\tcvt.u64.u32 %rd5, %r17;\n"
        body += "\tadd.s64 %rd6, %rd1, %rd5;\n"
        for k in range(n):
            body += f"\tld.global.u32 %r{20 + k}, [%rd6+{512 + 4 * k}];\n"
        body += f"\tstmatrix.sync.aligned.{form} [%r14], {{{regs}}};\n"
        body += "\tbar.warp.sync -1;\n"
        body += "\tld.shared.v4.u32 {%r3, %r4, %r5, %r6}, [%r16];\n"
        body += "\tadd.s64 %rd7, %rd2, %rd3;\n"
        body += "\tst.global.v4.u32 [%rd7], {%r3, %r4, %r5, %r6};\n"
    return head + body + "\tret;\n}\n"


def out_bytes(op, form):
    return 32 * 4 * nregs(form) if op == "ld" else 512


def inputs(seed=0):
    return np.random.default_rng(seed).integers(0, 256, NBYTES, dtype=np.uint8)


def _decompress(row, fmt):
    """A 16-byte source row as 16 8-bit containers (.b8x16): b4x16_p64, element i is nibble i of
    bytes 0-7, low nibble first, placed at bits 5..2; b6x16_p32, element i is bits 6i..6i+5 of
    bytes 0-11 (little endian), at bits 5..0 (the placements tile-sim's tcgen05.cp uses)."""
    if fmt == "b4x16_p64":
        return [((row[i // 2] >> (4 * (i % 2))) & 0xF) << 2 for i in range(16)]
    v = int.from_bytes(bytes(row[:12]), "little")
    return [(v >> (6 * i)) & 0x3F for i in range(16)]


def expected(op, form, inp):
    parts = form.split(".")
    shape, num = parts[0], {"x1": 1, "x2": 2, "x4": 4}[parts[1]]
    trans = "trans" in parts
    n = nregs(form)
    smem = inp[:512]
    if op == "ld":
        rows = [smem[16 * perm(i):16 * perm(i) + 16] for i in range(32)]
        if "b8x16" in parts:
            rows = [np.array(_decompress(r, parts[-1]), np.uint8) for r in rows]
        out = np.zeros((32, n, 4), np.uint8)
        for T in range(32):
            for k in range(n):
                for j in range(4):
                    if shape == "m8n8":  # 8x8 b16: thread T holds row T/4, columns 2(T%4)+h
                        r, c, h = T // 4, 2 * (T % 4) + j // 2, j % 2
                        if trans:
                            r, c = c, r
                        out[T, k, j] = rows[8 * k + r][2 * c + h]
                    elif shape == "m16n16":  # 4 consecutive columns of rows T/4 and T/4+8
                        m, half = k // 2, k % 2
                        vr, vc = T // 4 + 8 * (j // 2), 4 * (T % 4) + 2 * half + j % 2
                        out[T, k, j] = rows[16 * m + vc][vr]  # .trans: from row vc, column vr
                    else:  # m8n16: 4 consecutive columns of row T/4
                        out[T, k, j] = rows[8 * k + T // 4][4 * (T % 4) + j]
        return out.reshape(-1)
    regs = inp[512:512 + 128 * n].reshape(32, n, 4) if n else None
    mat = np.zeros((32, 16), np.uint8)
    for T in range(32):
        for k in range(n):
            for j in range(4):
                if shape == "m8n8":
                    r, c, h = T // 4, 2 * (T % 4) + j // 2, j % 2
                    if trans:
                        r, c = c, r
                    mat[8 * k + r, 2 * c + h] = regs[T, k, j]
                else:  # m16n8 .trans: rows T/4 and T/4+8 of a 16x8 view, columns 2(T%4)+(j&1)
                    vr, vc = T // 4 + 8 * (j // 2), 2 * (T % 4) + j % 2
                    mat[8 * k + vc, vr] = regs[T, k, j]
    out = np.zeros(512, np.uint8)
    rows_used = 8 * num
    for i in range(rows_used):
        out[16 * perm(i):16 * perm(i) + 16] = mat[i]
    return out
