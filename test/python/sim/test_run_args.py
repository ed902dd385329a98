"""Issue #22: run_ptx checks every argument before the run and raises its own EmulationError for each
misuse (grid="12" ran as (1, 2, 1); grid=(3.9, 1, 1) as 3 CTAs; a .u32 argument of 2**64 wrapped to 0;
max_seconds=nan turned the time budget off; a read-only array raised numpy's ValueError after the run;
max_steps="5" a TypeError)."""
import numpy as np
import pytest

from ptxgen import HEADER
from tile_mlir.sim import EmulationError, run_ptx

PTX = (HEADER + ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1\n)\n{\n"
       "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n"
       "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
       "\tld.param.u32 %r1, [k_param_1];\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n")


def run(args=None, **kw):
    args = [np.zeros(4, np.uint32), 7] if args is None else args
    kw.setdefault("block", (1, 1, 1))
    return run_ptx(PTX, "k", args, **kw), args[0]


@pytest.mark.parametrize("kw,match", [
    ({"grid": "12"}, r"grid='12': expected an int or a tuple of 1 to 3 ints"),
    ({"block": "32"}, r"block='32': expected an int"),
    ({"grid": (3.9, 1, 1)}, r"grid=\(3\.9, 1, 1\): expected an int"),
    ({"grid": (True, 1, 1)}, r"expected an int"),
    ({"grid": (1, 1, 1, 1)}, r"tuple of 1 to 3 ints"),
    ({"cluster": "2"}, r"cluster='2'"),
    ({"max_seconds": float("nan")}, r"max_seconds=nan: expected a finite number of seconds > 0"),
    ({"max_seconds": float("inf")}, r"max_seconds=inf"),
    ({"max_seconds": 0}, r"max_seconds=0"),
    ({"max_steps": "5"}, r"max_steps='5': expected an int >= 1"),
    ({"max_steps": 0}, r"max_steps=0"),
    ({"dynamic_smem": -1}, r"dynamic_smem=-1"),
    ({"dynamic_smem": 1.5}, r"dynamic_smem=1.5"),
    ({"trace": "yes"}, r"trace='yes': expected True or False"),
])
def test_bad_option_is_its_own_error(kw, match):
    with pytest.raises(EmulationError, match=match):
        run(**kw)


@pytest.mark.parametrize("value", [2 ** 64, 2 ** 32, -(2 ** 31) - 1])
def test_integer_argument_must_fit_its_parameter(value):
    with pytest.raises(EmulationError, match=rf"argument {value} for \.u32 k_param_1 does not fit in 32 bits"):
        run([np.zeros(4, np.uint32), value])


def test_read_only_array_is_refused_before_the_run():
    out = np.zeros(4, np.uint32)
    out.flags.writeable = False
    with pytest.raises(EmulationError, match="array for k_param_0 is read-only"):
        run_ptx(PTX, "k", [out, 7], block=1)


def test_args_must_be_a_list():
    with pytest.raises(EmulationError, match="args must be a list"):
        run_ptx(PTX, "k", "ab", block=1)


def test_good_calls_still_run():
    for kw in ({"grid": 1, "block": 1}, {"grid": [1], "block": (np.int64(1),)}, {"max_seconds": 5.0}):
        _, out = run(**kw)
        assert out[0] == 7
    _, out = run([np.zeros(4, np.uint32), 2 ** 32 - 1])
    assert out[0] == 2 ** 32 - 1
    _, out = run([np.zeros(4, np.uint32), -1])
    assert out[0] == 2 ** 32 - 1
