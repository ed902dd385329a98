"""Which test checks the results of which instruction forms: (pattern over the form, test id).

A form is *supported* in the coverage table when tile-sim decodes it and a pattern here matches it
(sim/coverage/__init__.py).  A test listed here must check every form its pattern matches against
literal values from the PTX ISA, an exact reference, MMA-Sim or the H200 -- the family tests under
test/python/sim/ do so by iterating the table's rows that match the same pattern
(``isa_rows(pattern)``), so pattern and test cannot drift apart.  Add a row with a new handler.
"""

from __future__ import annotations

import re

_T = "test/python/sim/"

#: (regular expression matched against the whole form, test id)
TESTS: list[tuple[str, str]] = [
    # floating-point arithmetic: exact rational reference, every rounding mode, special values
    (r"(add|sub|mul|fma|mad|div|sqrt|rcp)(\.(rn|rz|rm|rp))?(\.ftz)?(\.sat)?(\.relu)?"
     r"\.(f32|f64|f16|bf16|f16x2|bf16x2|f32x2)",
     _T + "test_isa_fparith.py::test_arith_rows"),
    (r"(add|sub|fma)(\.(rn|rz|rm|rp))?(\.sat)?\.f32\.(f16|bf16)",
     _T + "test_isa_fparith.py::test_arith_rows"),
    (r"(min|max)(\.ftz)?(\.NaN)?(\.xorsign\.abs|\.abs)?\.(f32|f64|f16|bf16|f16x2|bf16x2)",
     _T + "test_isa_fparith.py::test_minmax_rows"),
    (r"(neg|abs)(\.ftz)?\.(f32|f64|f16|bf16|f16x2|bf16x2)|copysign\.(f32|f64)|"
     r"testp\.\w+\.(f32|f64)",
     _T + "test_isa_fparith.py::test_sign_test_rows"),
    # conversions: exhaustive over 16-bit sources, exact reference
    (r"cvt(?!\.pack)(\.\w+)*\.(f16|bf16|f32|f64|tf32|[us](8|16|32|64))\.(f16|bf16|f32|f64|[us](8|16|32|64))",
     _T + "test_isa_cvt.py::test_cvt_rows"),
    (r"cvt(\.\w+)*\.(f16x2|bf16x2|e4m3x2|e5m2x2|e2m1x2|e2m3x2|e3m2x2|ue8m0x2)\."
     r"(f32|f16x2|bf16x2|e4m3x2|e5m2x2|e2m1x2|e2m3x2|e3m2x2|ue8m0x2)",
     _T + "test_isa_cvt.py::test_cvt_pack_rows"),
    (r"cvt\.pack\.sat\.\w+\.s32(\.b32)?", _T + "test_isa_cvt.py::test_cvt_pack_int_rows"),
    # integer, logic, comparison
    (r"(add|sub|mul|mad|mul24|mad24|sad|div|rem|abs|neg|min|max|popc|clz|bfind|brev|bfe|bfi|"
     r"fns|prmt|shf|shl|shr|lop3|dp4a|dp2a|bmsk|szext|and|or|xor|not|cnot|addc|subc|madc)"
     r"(\.\w+)*\.([us](16|32|64)|b(16|32|64)|[us]16x2|pred)(\.\w+)?",
     _T + "test_isa_int.py::test_int_rows"),
    (r"mov\.(b16|b32|b64|u16|u32|u64|s16|s32|s64|f32|f64|pred)", _T + "test_isa_int.py::test_int_rows"),
    (r"(setp|set|selp|slct)(\.\w+)*", _T + "test_isa_compare.py::test_compare_rows"),
    (r"cvta(\.to)?\.(global|shared|shared::cta|shared::cluster|local|const|param|param::entry)\.u64",
     _T + "test_isa_address.py::test_cvta_rows"),
    # loads and stores: every state space but param, every type, vector and qualifier (not the
    # asynchronous st.async / st.bulk, whose completion is an mbarrier's)
    (r"(ld|st|ldu)(?![\w.:]*\.(param|async|bulk))(\.[\w:]+)*\.[bsuf](8|16|32|64|128)",
     _T + "test_isa_memory.py::test_memory_rows"),
    # atom / red: every operation, type, vector form, semantics, scope and state space, against a
    # reference from the ISA's definitions (old value returned, memory updated, float rounding)
    (r"(atom|red)(?![\w.:]*\.async)(\.[\w:]+)*\.(add|min|max|and|or|xor|exch|cas|inc|dec)"
     r"(\.[\w:]+)*\.([bsu](16|32|64|128)|f16|bf16|f32|f64|f16x2|bf16x2)",
     _T + "test_isa_atomics.py::test_atomic_rows"),
    # approximate math: each form run in a kernel on literal outputs of an sm_90 GPU
    (r"(ex2|lg2|rcp|rsqrt|sqrt|sin|cos|tanh)\.approx(\.ftz)?\.(f32|f64|f16|bf16|f16x2|bf16x2)",
     _T + "test_approx.py::test_instruction_in_a_kernel"),
    # warp collectives: each row's opcode over the whole warp and a partial member mask
    (r"redux\.sync\.(add|min|max)\.[us]32|redux\.sync\.(and|or|xor)\.b32|"
     r"redux\.sync\.(min|max)(\.abs)?(\.NaN)?\.f32|shfl\.sync\.(up|down|bfly|idx)\.b32|"
     r"vote\.sync\.(all|any|uni)\.pred|match\.(any|all)\.sync\.b32|activemask\.b32|elect\.sync",
     _T + "test_isa_warp.py::test_warp_rows"),
    # barriers: a store before seen after, by a thread that would otherwise run first
    (r"(bar|barrier)(\.cta)?\.(sync|arrive|red\.popc)(\.aligned)?(\.u32)?|"
     r"barrier\.cluster\.(arrive|wait)(\.(relaxed|release|acquire))?(\.aligned)?|bar\.warp\.sync",
     _T + "test_isa_barriers.py::test_barrier_rows"),
    # fences: which ones order generic-proxy shared stores before an async-proxy read
    (r"membar\.(cta|gl|sys|proxy\.\w+)|fence(\.[\w:]+)*", _T + "test_isa_fences.py::test_fence_rows"),
    # ldmatrix / stmatrix / movmatrix: the fragments of the ISA's figures
    (r"(ld|st)matrix\.sync\.aligned\.[\w.:]+",
     _T + "test_matrix_tables.py::test_every_row_runs_as_the_isa_says"),
    (r"movmatrix\.sync\.aligned\.m8n8\.trans\.b16",
     _T + "test_warp_collectives.py::test_movmatrix_transposes_the_m8n8_fragment"),
    # ld / st of the parameter state space: a kernel parameter's bytes, a call argument's bytes
    (r"(ld|st)(\.weak)?\.param(::entry)?\.[bsuf](8|16|32|64|128)", _T + "test_isa_param.py::test_param_rows"),
    # wgmma: every N and kind against MMA-Sim (floats) or the exact product (integers)
    (r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k\d+(\.satfinite)?\.(f16|f32|s32)\."
     r"(f16|bf16|tf32|e4m3|e5m2|s8|u8)\.(f16|bf16|tf32|e4m3|e5m2|s8|u8)",
     _T + "test_isa_wgmma.py::test_wgmma_rows"),
    # mma.sync: MMA-Sim for the float kinds, the exact product for the integer and .b1 kinds
    (r"mma\.sync\.aligned\.m\d+n\d+k\d+\.row\.col(\.satfinite)?\.(f16|f32|f64|s32)\."
     r"(f16|bf16|tf32|f64|[su]8|[su]4|b1)\.(f16|bf16|tf32|f64|[su]8|[su]4|b1)\.(f16|f32|f64|s32)"
     r"(\.(and|xor)\.popc)?", _T + "test_isa_mma.py::test_mma_rows"),
    # tcgen05.ld / st: the ISA's fragment figures, (un)packing by Table A's A16
    (r"tcgen05\.(ld|st)\.sync\.aligned\.(32x32b|16x64b|16x128b|16x256b|16x32bx2)\.x\d+"
     r"(\.pack::16b|\.unpack::16b)?\.b32",
     _T + "test_isa_tcgen05_ldst.py::test_tcgen05_ldst_rows"),
]

_COMPILED = [(re.compile(p + r"\Z"), t) for p, t in TESTS]


def checking_test(form: str) -> str | None:
    for rx, t in _COMPILED:
        if rx.match(form):
            return t
    return None


def pattern_of(test_id: str) -> re.Pattern:
    """The forms one test is registered for (its family test iterates them)."""
    return re.compile("(?:" + "|".join(f"(?:{p})" for p, t in TESTS if t == test_id) + r")\Z")

# ---- forms implemented by cov-impl (multimem, bulk reductions, ...): appended, one block
TESTS += [
    (r"multimem\.(ld_reduce|st|red)(\.[\w:]+)+", _T + "test_isa_multimem.py::test_multimem_rows"),
    (r"cp\.reduce\.async\.bulk\.(global|shared::cluster)(\.[\w:]+)+",
     _T + "test_isa_bulk_reduce.py::test_bulk_reduce_rows"),
    (r"cp\.reduce\.async\.bulk\.tensor\.[1-5]d\.global\.shared::cta\.\w+(\.tile)?\.bulk_group",
     _T + "test_isa_bulk_reduce.py::test_bulk_reduce_tensor_rows"),
    (r"(st|red)\.async(?![\w.:]*mbarrier)(\.[\w:]+)+|"
     r"st\.async(\.weak)?(\.shared::cluster)?\.mbarrier::complete_tx::bytes\.[us]64",
     _T + "test_isa_async_global.py::test_async_global_rows"),
    (r"(alloca|stacksave|stackrestore)\.u(32|64)", _T + "test_isa_stack.py::test_stack_rows"),
    (r"tensormap\.replace\.tile\.(global_address|rank)\.b1024\.b(64|32)",
     _T + "test_tensormap_generic.py::test_tensormap_generic_rows"),
]
_COMPILED = [(re.compile(p + r"\Z"), t) for p, t in TESTS]

# ---- cov-rest: row-driven tests of the decoded-but-untested rest, appended, one block
TESTS += [
    (r"st\.async(\.weak)?(\.shared::cluster)?\.mbarrier::complete_tx::bytes\.(b32|b64|f32|f64|s32|u32)|"
     r"red\.async\.relaxed\.cluster(\.shared::cluster)?\.mbarrier::complete_tx::bytes\."
     r"(add|and|or|xor|min|max|inc|dec)\.(u32|s32|u64|b32)",
     _T + "test_isa_async_mbarrier.py::test_async_mbarrier_rows"),
]
_COMPILED = [(re.compile(p + r"\Z"), t) for p, t in TESTS]
TESTS += [
    (r"mbarrier\.(init|arrive|arrive_drop|expect_tx|complete_tx|test_wait|try_wait|inval)"
     r"(\.(expect_tx|noComplete|release|cta))*(\.shared(::cta|::cluster)?)?\.b64|"
     r"cp\.async\.mbarrier\.arrive(\.noinc)?(\.shared(::cta)?)?\.b64",
     _T + "test_isa_mbarrier.py::test_mbarrier_rows"),
]
_COMPILED = [(re.compile(p + r"\Z"), t) for p, t in TESTS]
TESTS += [
    (r"cp\.async\.bulk\.tensor\.[1-5]d\.(shared::cta|shared::cluster)\.global(\.tile)?"
     r"\.mbarrier::complete_tx::bytes(\.cta_group::[12])?|"
     r"cp\.async\.bulk\.tensor\.[1-5]d\.global\.shared::cta(\.tile)?\.bulk_group",
     _T + "test_isa_tma.py::test_tma_rows"),
]
_COMPILED = [(re.compile(p + r"\Z"), t) for p, t in TESTS]
TESTS += [
    (r"cp\.async\.bulk\.(shared::cta\.global|shared::cluster\.global|shared::cluster\.shared::cta)"
     r"\.mbarrier::complete_tx::bytes|cp\.async\.bulk\.global\.shared::cta\.bulk_group|"
     r"cp\.async\.bulk\.(commit_group|wait_group(\.read)?)|"
     r"cp\.async\.ca\.shared(::cta)?\.global|cp\.async\.(commit_group|wait_group|wait_all)",
     _T + "test_isa_bulk_copy.py::test_bulk_copy_rows"),
]
_COMPILED = [(re.compile(p + r"\Z"), t) for p, t in TESTS]
TESTS += [
    (r"cp\.async\.bulk\.prefetch\.tensor\.[1-5]d\.L2\.global(\.tile)?|cp\.async\.bulk\.prefetch\.L2\.global|"
     r"prefetch(\.param|\.const)?\.tensormap", _T + "test_isa_prefetch.py::test_prefetch_rows"),
]
_COMPILED = [(re.compile(p + r"\Z"), t) for p, t in TESTS]
TESTS += [
    (r"isspacep\.(global|local|shared|shared::cta|shared::cluster|param|param::entry|const)|mapa(\.shared::cluster)?\.u64|"
     r"mapa\.shared::cluster\.u32|getctarank(\.shared::cluster)?\.u64|getctarank\.shared::cluster\.u32",
     _T + "test_isa_cluster_addr.py::test_cluster_addr_rows"),
]
_COMPILED = [(re.compile(p + r"\Z"), t) for p, t in TESTS]
TESTS += [
    (r"tcgen05\.cp\.cta_group::[12]\.(128x256b|128x128b|4x256b)(\.b8x16\.(b4x16_p64|b6x16_p32))?",
     _T + "test_isa_tcgen05_cp.py::test_tcgen05_cp_rows"),
]
_COMPILED = [(re.compile(p + r"\Z"), t) for p, t in TESTS]
TESTS += [
    (r"tcgen05\.(alloc\.cta_group::[12]\.sync\.aligned(\.shared::cta)?\.b32|"
     r"dealloc\.cta_group::[12]\.sync\.aligned\.b32|relinquish_alloc_permit\.cta_group::[12]\.sync\.aligned|"
     r"commit\.cta_group::[12]\.mbarrier::arrive::one(\.shared::cluster)?\.b64|"
     r"wait::ld\.sync\.aligned)",
     _T + "test_isa_tcgen05_sync.py::test_tcgen05_sync_rows"),
]
_COMPILED = [(re.compile(p + r"\Z"), t) for p, t in TESTS]
TESTS += [
    (r"tcgen05\.mma\.cta_group::[12]\.kind::(f16|tf32|f8f6f4|i8)",
     _T + "test_isa_tcgen05_mma_rows.py::test_tcgen05_mma_rows"),
]
_COMPILED = [(re.compile(p + r"\Z"), t) for p, t in TESTS]

# ---- corpus: the rest, row by row (test_isa_rest_rows.py), appended, one block
_R = _T + "test_isa_rest_rows.py::"
TESTS += [
    (r"bra(\.uni)?|exit|ret(\.uni)?|trap|brkpt", _R + "test_control_rows"),
    (r"prefetch(\.(global|local))?\.(L1|L2|L2::evict_last|L2::evict_normal)|prefetchu\.L1|"
     r"nanosleep\.u32|createpolicy\.(cvt|fractional|range(\.global)?)(\.L2(::\w+)?)\.b64",
     _R + "test_hint_rows"),
    (r"griddepcontrol\.(launch_dependents|wait)", _R + "test_griddepcontrol_rows"),
    (r"setmaxnreg\.(inc|dec)\.sync\.aligned\.u32", _R + "test_setmaxnreg_rows"),
    (r"clusterlaunchcontrol\.(try_cancel\.async(\.shared::cta)?\.mbarrier::complete_tx::bytes"
     r"(\.multicast::cluster::all)?\.b128|query_cancel\.(is_canceled\.pred|get_first_ctaid::[xyz]\.b32)"
     r"\.b128)", _R + "test_clc_rows"),
    (r"tensormap\.replace\.tile\.(global_address|rank)\.(global|shared::cta)\.b1024\.b(64|32)",
     _R + "test_tensormap_space_rows"),
    (r"tcgen05\.(fence::(before|after)_thread_sync|wait::st\.sync\.aligned)",
     _R + "test_tcgen05_fence_rows"),
    (r"wgmma\.(fence|commit_group|wait_group)\.sync\.aligned", _R + "test_wgmma_sync_rows"),
    (r"div\.full(\.ftz)?\.f32", _R + "test_div_full_rows"),
    (r"mov\.b128", _R + "test_mov_b128_rows"),
]
_COMPILED = [(re.compile(p + r"\Z"), t) for p, t in TESTS]
