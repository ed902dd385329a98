"""PTX identifiers and { } scopes as CUTLASS / CuTe DSL inline assembly writes them: registers
without `%`, blocks with their own registers and labels (inlined several times), shadowing, and
%r<N> ranges; every kernel is assembled by ptxas first, so each accepted form is legal PTX."""

import numpy as np
import pytest

from ptxgen import HEADER
from tile_mlir.sim import EmulationError, run_ptx

# CuTe DSL's mbarrier wait (cute.arch.mbarrier_wait), as NVVM inlines it: P1, LAB_WAIT, DONE
WAIT = ("\t{{\n\t.reg .pred       P1;\n\tLAB_WAIT:\n"
        "\tmbarrier.try_wait.parity.shared.b64 P1, [%r3], {phase}, 10000000;\n"
        "\t@P1 bra.uni DONE;\n\tbra.uni     LAB_WAIT;\n\tDONE:\n\t}}\n")


def kernel(body, regs="\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n"):
    return (HEADER + ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n" + regs
            + "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
            + body + "\tret;\n}\n")


def run(ptx, n=4, block=(1, 1, 1)):
    out = np.zeros(n, np.uint32)
    run_ptx(ptx, "k", [out], block=block)
    return out


def test_inline_mbarrier_wait_repeated_in_one_kernel(assemble):
    """The issue's reproducer: one { } block with `.reg .pred P1` and labels LAB_WAIT / DONE,
    inlined twice (phases 0 and 1), once "bad register name `P1`", then "duplicate label"."""
    body = ("\t.shared .align 8 .b8 bar[8];\n\tmov.u32 %r3, bar;\n"
            "\tmbarrier.init.shared.b64 [bar], 1;\n"
            "\tmbarrier.arrive.shared.b64 %rd2, [bar];\n" + WAIT.format(phase=0)
            + "\tmbarrier.arrive.shared.b64 %rd2, [bar];\n" + WAIT.format(phase=1)
            + "\tmov.u32 %r4, 7;\n\tst.global.u32 [%rd1], %r4;\n")
    ptx = kernel(body)
    assemble(ptx)
    assert run(ptx)[0] == 7


def test_block_registers_shadow_and_end_with_the_block(assemble):
    body = ("\tmov.u32 %r1, 5;\n"
            "\t{\n\t.reg .b32 %r1;\n\tmov.u32 %r1, 7;\n\tst.global.u32 [%rd1+4], %r1;\n\t}\n"
            "\tst.global.u32 [%rd1], %r1;\n")
    ptx = kernel(body)
    assemble(ptx)
    assert list(run(ptx)[:2]) == [5, 7]  # the outer %r1 is untouched by the block's


def test_names_without_percent_and_with_dollar(assemble):
    body = ("\t{\n\t.reg .b32 r1, $x, _y;\n\t.reg .pred P1;\n\tmov.u32 r1, 3;\n"
            "\tadd.u32 $x, r1, 4;\n\tsetp.eq.u32 P1, $x, 7;\n\tselp.u32 _y, 1, 2, P1;\n"
            "\t@!P1 bra SKIP;\n\tst.global.u32 [%rd1], _y;\nSKIP:\n\t}\n")
    ptx = kernel(body)
    assemble(ptx)
    assert run(ptx)[0] == 1


def test_inner_label_shadows_outer_and_outer_labels_are_visible(assemble):
    body = ("\tmov.u32 %r1, 0;\n\tbra A;\nA:\n\tadd.u32 %r1, %r1, 1;\n"
            "\t{\n\tbra A;\n\tmov.u32 %r1, 100;\nA:\n\tadd.u32 %r1, %r1, 10;\n"
            "\tbra.uni OUT;\n\t}\nOUT:\n\tst.global.u32 [%rd1], %r1;\n")
    ptx = kernel(body)
    assemble(ptx)
    assert run(ptx)[0] == 11  # the block's `bra A` is its own A; OUT is the function's


def test_range_registers_resolve_by_their_digits(assemble):
    body = "\tmov.u32 %r01, 9;\n\tst.global.u32 [%rd1], %r1;\n"  # ptxas: %r01 is %r1
    ptx = kernel(body)
    assemble(ptx)
    assert run(ptx)[0] == 9


def test_a_declaration_shadows_a_special_register(assemble):
    body = "\t{\n\t.reg .b32 %laneid;\n\tmov.u32 %laneid, 3;\n\tst.global.u32 [%rd1], %laneid;\n\t}\n"
    ptx = kernel(body)
    assemble(ptx)
    assert run(ptx, block=(32, 1, 1))[0] == 3


@pytest.mark.parametrize("body,match", [
    # ptxas: "Unknown symbol 'INNER'": a block's label is not visible outside it
    ("\tbra INNER;\n\t{\nINNER:\n\tmov.u32 %r1, 1;\n\t}\n", r"unknown identifier `INNER`"),
    ("\t{\n\t.reg .b32 q;\n\tmov.u32 q, 1;\n\t}\n\tmov.u32 q, 2;\n", r"unknown identifier `q`"),
    # ptxas: "Duplicate definition of variable '%r1'"
    ("\t.reg .b32 %r1;\n", r"duplicate definition of register `%r1`"),
    ("\t.reg .b32 A;\nA:\n", r"duplicate definition of label `A`"),
    ("\tmov.u32 %r8, 1;\n", r"unknown identifier `%r8`"),
    ("\t.reg .b32 %q;\n\tmov.u32 %q, 1;\n\t@%q bra L;\nL:\n", r"guard `%q` is not a .pred"),
    ("\tmov.u32 %r1+4, 1;\n", r"register %r1 cannot take an offset"),
])
def test_scope_errors_name_the_line(body, match):
    ptx = kernel(body)
    with pytest.raises(EmulationError, match=match) as ei:
        run(ptx)
    assert ei.value.line is not None


def test_huge_register_range_is_refused_at_once():
    """`.reg .b32 %r<2147483648>;` expanded two billion names (a hang and unbounded memory)."""
    ptx = kernel("", regs="\t.reg .b32 %r<2147483648>;\n\t.reg .b64 %rd<4>;\n")
    with pytest.raises(EmulationError, match=r"line \d+: kernel k declares 2147483648 registers, "
                                             r"more than tile-sim's limit of 65536"):
        run(ptx)


def test_registers_get_slots_only_when_used():
    """A kernel declaring the maximum but using a few registers runs with a small register file."""
    ptx = kernel("\tmov.u32 %r65000, 4;\n\tst.global.u32 [%rd1], %r65000;\n",
                 regs="\t.reg .b32 %r<65532>;\n\t.reg .b64 %rd<4>;\n")
    assert run(ptx, block=(1024, 1, 1))[0] == 4


@pytest.mark.parametrize("text,match", [
    (".address_size 0x40", None),  # 64 (was a ValueError)
    (".address_size 48", r"the address size must be 32 or 64"),
    (".address_size", r"the address size must be 32 or 64"),
])
def test_address_size(text, match):
    ptx = kernel("").replace(".address_size 64", text)
    if match is None:
        run(ptx)
    else:
        with pytest.raises(EmulationError, match=match):
            run(ptx)


@pytest.mark.parametrize("align", ["0", "3", "-16"])
def test_bad_alignment(align):
    """`.align 0` divided by zero while laying out shared memory."""
    ptx = kernel(f"\t.shared .align {align} .b8 buf[16];\n")
    with pytest.raises(EmulationError):
        run(ptx)


def test_overlong_integer_literal():
    ptx = kernel("\tmov.u32 %r1, " + "9" * 5000 + ";\n")
    with pytest.raises(EmulationError, match=r"does not fit in 64 bits"):
        run(ptx)


@pytest.mark.parametrize("directive,match", [
    (".reqntid 0", r"must be positive"),
    (".reqntid 32, 2, 2, 2", r"takes 1..3 integers"),
    (".reqntid 128 .maxntid 256", r"cannot both be given"),
    (".maxnreg 0", r"must be positive"),
    (".frob 8", r"unknown directive `.frob 8`"),
])
def test_bad_entry_directives(directive, match):
    ptx = kernel("").replace("\n)\n{", "\n)\n" + directive + "\n{")
    with pytest.raises(EmulationError, match=match):
        run(ptx)


def test_deep_block_nesting_is_bounded():
    ptx = kernel("{" * 300 + "}" * 300 + "\n")
    with pytest.raises(EmulationError, match=r"blocks nested deeper than 256"):
        run(ptx)


def test_block_local_variables_are_distinct(assemble):
    """Two blocks declare `.local .b32 s`: two variables (and `.local` is no `.loc` directive,
    which dropped the declaration)."""
    body = ("\t{\n\t.local .align 4 .b32 s;\n\tst.local.u32 [s], 3;\n\t}\n"
            "\t{\n\t.local .align 4 .b32 s;\n\tst.local.u32 [s], 4;\n\t}\n"
            "\t{\n\t.local .align 4 .b32 s;\n\tld.local.u32 %r1, [s];\n"
            "\tst.global.u32 [%rd1], %r1;\n\t}\n")
    ptx = kernel(body)
    assemble(ptx)
    assert run(ptx)[0] == 0  # the third block's s was never written


@pytest.mark.parametrize("operand,match", [
    ("{" * 5000 + "%r1" + "}" * 5000, r"nests vectors, pairs or `!`"),  # was a RecursionError
    ("!" * 5000 + "%r1", r"nests vectors, pairs or `!`"),
    ("%r1|" * 5000 + "%r1", r"nests vectors, pairs or `!`"),
    ("%r" + "1" * 5000, r"unknown identifier"),  # int() refuses 5000 digits: was a ValueError
])
def test_pathological_operands(operand, match):
    with pytest.raises(EmulationError, match=match):
        run(kernel(f"\tmov.u32 %r1, {operand};\n"))
