"""PTX of one campaign configuration, written from the PTX ISA (wgmma chapter §9.7.15), not by our
lowering: every CTA copies its instance's shared-memory image from global memory (plain
ld.global / st.shared), fences the generic proxy against the async proxy, loads the accumulator
fragment (when scale-d is on), issues one wgmma.mma_async with descriptors built at run time from
the static buffer's shared address, waits for it, and stores the accumulator registers to global
memory as out[cta][thread][register]."""

from __future__ import annotations

from wg_layout import Operand

ELEM_BYTES = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1}
K_OF = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32}


def operands(cfg) -> tuple[Operand, Operand, int, int]:
    """(A, B, B's offset in shared memory, shared bytes) of a configuration."""
    eb, k = ELEM_BYTES[cfg["atype"]], K_OF[cfg["atype"]]
    a = Operand(64, k, eb, cfg["a"]["major"], cfg["a"]["swizzle"], cfg["a"]["arr"],
                cfg["a"].get("koff", 0))
    b = Operand(cfg["n"], k, eb, cfg["b"]["major"], cfg["b"]["swizzle"], cfg["b"]["arr"],
                cfg["b"].get("koff", 0))
    return a, b, a.size, a.size + b.size


def nregs(cfg) -> int:
    return cfg["n"] // 2 if cfg["dtype"] in ("f32", "s32") else cfg["n"] // 4


def a_in_registers(cfg) -> bool:
    return cfg["a"].get("src") == "regs"


def in_words(cfg) -> int:
    """32-bit words of one instance's input: the shared image, the accumulator fragment, then
    (A from registers) the A fragment, 4 words per thread."""
    return operands(cfg)[3] // 4 + 128 * nregs(cfg) + (128 * 4 if a_in_registers(cfg) else 0)


def a_fragment_position(atype: str, t: int, v: int) -> tuple[int, int]:
    """(row, k) of value v (0-based, low to high through a0, a1, ..) of thread t's A fragment, as
    the PTX ISA's wgmma "Register Fragments" figures for matrix A draw it: warp w of the
    warpgroup holds rows 16w..16w+15, with group g = lane/4 and i = lane%4 placing values as the
    mma.m16n8k* A fragments do."""
    w, lane = divmod(t, 32)
    g, i = divmod(lane, 4)
    if atype in ("f16", "bf16"):  # a0,a1 (g, 2i+0/1) a2,a3 (g+8, ..) a4,a5 (g, 2i+8..) a6,a7
        row = g + (8 if v in (2, 3, 6, 7) else 0)
        k = 2 * i + (v % 2) + (8 if v >= 4 else 0)
    elif atype == "tf32":  # a0 (g, i) a1 (g+8, i) a2 (g, i+4) a3 (g+8, i+4)
        row, k = g + 8 * (v % 2), i + 4 * (v // 2)
    else:  # a0..a3 (g, 4i+0..3) a4..a7 (g+8, ..) a8..a11 (g, 4i+16..) a12..a15 (g+8, ..)
        row = g + 8 * ((v // 4) % 2)
        k = 4 * i + (v % 4) + 16 * (v // 8)
    return 16 * w + row, k


def entry(cfg, name: str) -> str:
    a, b, boff, smem = operands(cfg)
    nr = nregs(cfg)
    rt = ".f32" if cfg["dtype"] == "f32" else ".b32"
    words = smem // 4
    fp = cfg["atype"] not in ("s8", "u8")
    sat = ".satfinite" if cfg.get("satfinite") else ""
    shape = f"m64n{cfg['n']}k{K_OF[cfg['atype']]}"
    imms = ""
    regs_a = a_in_registers(cfg)
    if fp:
        imms = f", {-1 if cfg['neg_a'] else 1}, {-1 if cfg['neg_b'] else 1}"
        if cfg["atype"] in ("f16", "bf16"):
            if not regs_a:
                imms += f", {int(cfg['a']['major'] == 'MN')}"
            imms += f", {int(cfg['b']['major'] == 'MN')}"
    acc = ", ".join(f"%d{j}" for j in range(nr))
    L = [f".visible .entry {name}(.param .u64 p_in, .param .u64 p_out)",
         "{", "\t.reg .pred %p<4>;", "\t.reg .b32 %r<16>;", "\t.reg .b64 %rd<24>;",
         f"\t.reg {rt} %d<{nr}>;", "\t.reg .b32 %a<4>;", f"\t.shared .align 1024 .b8 smem[{smem}];",
         "\tld.param.u64 %rd1, [p_in];", "\tld.param.u64 %rd2, [p_out];",
         "\tcvta.to.global.u64 %rd1, %rd1;", "\tcvta.to.global.u64 %rd2, %rd2;",
         "\tmov.u32 %r1, %tid.x;", "\tmov.u32 %r2, %ctaid.x;",
         f"\tmul.wide.u32 %rd3, %r2, {in_words(cfg) * 4};", "\tadd.s64 %rd3, %rd1, %rd3;",
         "\tmov.u32 %r3, smem;", "\tmov.u32 %r4, %r1;",
         "COPY:", f"\tsetp.ge.u32 %p1, %r4, {words};", "\t@%p1 bra COPIED;",
         "\tmul.wide.u32 %rd4, %r4, 4;", "\tadd.s64 %rd5, %rd3, %rd4;",
         "\tld.global.u32 %r5, [%rd5];", "\tshl.b32 %r6, %r4, 2;", "\tadd.u32 %r6, %r3, %r6;",
         "\tst.shared.u32 [%r6], %r5;", "\tadd.u32 %r4, %r4, 128;", "\tbra COPY;",
         "COPIED:", "\tfence.proxy.async.shared::cta;", "\tbar.sync 0;",
         f"\tmul.wide.u32 %rd6, %r1, {nr * 4};"]
    if cfg["scale_d"]:
        L += [f"\tadd.s64 %rd7, %rd3, {smem};", "\tadd.s64 %rd7, %rd7, %rd6;"]
        L += _vector_access("ld", rt, nr, "%rd7")
    if regs_a:
        L += [f"\tadd.s64 %rd12, %rd3, {smem + 128 * nr * 4};", "\tmul.wide.u32 %rd13, %r1, 16;",
              "\tadd.s64 %rd12, %rd12, %rd13;",
              "\tld.global.v4.b32 {%a0, %a1, %a2, %a3}, [%rd12];"]
    a_operand = "{%a0, %a1, %a2, %a3}" if regs_a else "%rd9"
    L += ["\tcvt.u64.u32 %rd8, %r3;",
          "\tshr.u64 %rd9, %rd8, 4;", f"\tadd.s64 %rd9, %rd9, {(a.koff) >> 4};",
          "\tand.b64 %rd9, %rd9, 16383;", f"\tor.b64 %rd9, %rd9, {a.descriptor_hi()};",
          "\tadd.s64 %rd10, %rd8, " + str(boff + b.koff) + ";", "\tshr.u64 %rd10, %rd10, 4;",
          "\tand.b64 %rd10, %rd10, 16383;", f"\tor.b64 %rd10, %rd10, {b.descriptor_hi()};",
          f"\tsetp.{'eq' if cfg['scale_d'] else 'ne'}.u32 %p2, %r1, %r1;",
          "\twgmma.fence.sync.aligned;",
          f"\twgmma.mma_async.sync.aligned.{shape}{sat}.{cfg['dtype']}.{cfg['atype']}."
          f"{cfg['btype']} {{{acc}}}, {a_operand}, %rd10, %p2{imms};",
          "\twgmma.commit_group.sync.aligned;", "\twgmma.wait_group.sync.aligned 0;",
          f"\tmul.wide.u32 %rd11, %r2, {128 * nr * 4};", "\tadd.s64 %rd11, %rd2, %rd11;",
          "\tadd.s64 %rd11, %rd11, %rd6;"]
    L += _vector_access("st", rt, nr, "%rd11")
    L += ["\tret;", "}"]
    return "\n".join(L)


def _vector_access(op: str, rt: str, nr: int, base: str) -> list[str]:
    """Loads or stores of registers %d0.. at base + 4j, as wide as the per-thread row's alignment
    allows (each thread's row starts at a multiple of 4 * nr bytes)."""
    w = 4 if nr % 4 == 0 else (2 if nr % 2 == 0 else 1)
    out = []
    for j in range(0, nr, w):
        regs = ", ".join(f"%d{j + i}" for i in range(w))
        v = f".v{w}" if w > 1 else ""
        regs = f"{{{regs}}}" if w > 1 else regs
        out.append(f"\t{op}.global{v}{rt} {regs}, [{base}+{4 * j}];" if op == "ld" else
                   f"\t{op}.global{v}{rt} [{base}+{4 * j}], {regs};")
    return out


def module(entries: list[str]) -> str:
    return "\n".join([".version 8.4", ".target sm_90a", ".address_size 64", ""] + entries) + "\n"
