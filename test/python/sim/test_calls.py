"""Device-function calls: .param arguments and return values, local-memory frames, recursion
(each activation its own registers and frame), void functions, the depth bound, and the calls
tile-sim refuses (functions without a body: the CUDA runtime's)."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx

HEAD = ".version 8.8\n.target sm_90a\n.address_size 64\n"

SQ = """
.func (.param .b32 func_retval0) sq(.param .b32 sq_param_0, .param .b32 sq_param_1)
{
	.local .align 4 .b8 __local_depot0[8];
	.reg .b64 %SPL;
	.reg .b32 %r<8>;
	mov.u64 %SPL, __local_depot0;
	ld.param.b32 %r1, [sq_param_0];
	ld.param.b32 %r2, [sq_param_1];
	st.local.u32 [%SPL], %r1;
	ld.local.u32 %r3, [%SPL];
	mad.lo.s32 %r4, %r3, %r3, %r2;
	st.param.b32 [func_retval0], %r4;
	ret;
}
"""

# fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2), n kept in the frame across the inner calls and
# fib(n - 1) in a register across the second: both must survive the recursion
FIB = """
.func (.param .b32 func_retval0) fib(.param .b32 fib_param_0)
{
	.local .align 4 .b8 __local_depot1[4];
	.reg .pred %p<2>;
	.reg .b64 %SPL;
	.reg .b32 %r<10>;
	mov.u64 %SPL, __local_depot1;
	ld.param.b32 %r1, [fib_param_0];
	setp.lt.s32 %p1, %r1, 2;
	@%p1 bra BASE;
	st.local.u32 [%SPL], %r1;
	add.s32 %r2, %r1, -1;
	{
	.param .b32 param0;
	st.param.b32 [param0], %r2;
	.param .b32 retval0;
	call.uni (retval0), fib, (param0);
	ld.param.b32 %r3, [retval0];
	}
	ld.local.u32 %r4, [%SPL];
	add.s32 %r5, %r4, -2;
	{
	.param .b32 param0;
	st.param.b32 [param0], %r5;
	.param .b32 retval0;
	call.uni (retval0), fib, (param0);
	ld.param.b32 %r6, [retval0];
	}
	add.s32 %r7, %r3, %r6;
	st.param.b32 [func_retval0], %r7;
	ret;
BASE:
	st.param.b32 [func_retval0], %r1;
	ret;
}
"""

STORE = """
.func store_at(.param .b64 store_at_param_0, .param .b32 store_at_param_1)
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<2>;
	ld.param.b64 %rd1, [store_at_param_0];
	ld.param.b32 %r1, [store_at_param_1];
	st.global.u32 [%rd1], %r1;
	ret;
}
"""


def kernel(funcs, call):
    return HEAD + funcs + """
.visible .entry k(.param .u64 pout)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [pout];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd2, %rd1, %rd2;
""" + call + "\tret;\n}\n"


CALL_SQ = """	{
	.param .b32 param0;
	st.param.b32 [param0], %r1;
	.param .b32 param1;
	st.param.b32 [param1], 5;
	.param .b32 retval0;
	call.uni (retval0), sq, (param0, param1);
	ld.param.b32 %r2, [retval0];
	}
	st.global.u32 [%rd2], %r2;
"""
CALL_FIB = """	{
	.param .b32 param0;
	st.param.b32 [param0], %r1;
	.param .b32 retval0;
	call.uni (retval0), fib, (param0);
	ld.param.b32 %r2, [retval0];
	}
	st.global.u32 [%rd2], %r2;
"""
CALL_STORE = """	{
	.param .b64 param0;
	st.param.b64 [param0], %rd2;
	.param .b32 param1;
	add.u32 %r3, %r1, 1000;
	st.param.b32 [param1], %r3;
	call.uni store_at, (param0, param1);
	}
"""


def test_call_with_parameters_and_a_return_value(assemble):
    ptx = kernel(SQ, CALL_SQ)
    assemble(ptx, "sm_90a")
    out = np.zeros(32, np.uint32)
    run_ptx(ptx, "k", [out], block=(32, 1, 1), strict=True)
    assert (out == np.arange(32) ** 2 + 5).all()


def test_recursion_keeps_each_activations_registers_and_frame(assemble):
    ptx = kernel(FIB, CALL_FIB)
    assemble(ptx, "sm_90a")
    out = np.zeros(16, np.uint32)
    run_ptx(ptx, "k", [out], block=(16, 1, 1), strict=True)
    fib = [0, 1]
    for _ in range(14):
        fib.append(fib[-1] + fib[-2])
    assert out.tolist() == fib


def test_void_function_with_a_pointer_parameter(assemble):
    ptx = kernel(STORE, CALL_STORE)
    assemble(ptx, "sm_90a")
    out = np.zeros(32, np.uint32)
    run_ptx(ptx, "k", [out], block=(32, 1, 1), strict=True)
    assert (out == np.arange(32) + 1000).all()


def test_runaway_recursion_hits_the_depth_bound():
    ptx = kernel(FIB.replace("setp.lt.s32 %p1, %r1, 2;", "setp.lt.s32 %p1, %r1, -100000;"),
                 CALL_FIB)
    with pytest.raises(EmulationError, match="call depth exceeds 1024"):
        run_ptx(ptx, "k", [np.zeros(1, np.uint32)], block=(1, 1, 1))


def test_calls_of_runtime_functions_are_refused():
    ptx = HEAD + ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);\n" + \
        kernel("", """	{
	.param .b64 param0;
	st.param.b64 [param0], 0;
	.param .b64 param1;
	st.param.b64 [param1], 0;
	.param .b32 retval0;
	call.uni (retval0), vprintf, (param0, param1);
	}
""")[len(HEAD):]
    with pytest.raises(EmulationError, match="vprintf.*has no body"):
        run_ptx(ptx, "k", [np.zeros(1, np.uint32)], block=(1, 1, 1))
