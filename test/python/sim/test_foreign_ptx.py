"""PTX that another compiler wrote: the CuTe DSL kernels of test/fixtures/ptx (make_cute.py there
regenerates them) assemble with ptxas, run on tile-sim at their manifest's launch shape with
bit-exact results, and are refused at a block their .reqntid does not allow.

Triton and TVM are not installed here (Triton's wheel is large), so no PTX of theirs is kept."""

import json
import pathlib

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, run_ptx

FIXTURES = pathlib.Path(__file__).parents[2] / "fixtures" / "ptx"


def load(name):
    ptx = (FIXTURES / f"cute_{name}.ptx").read_text()
    man = json.loads((FIXTURES / f"cute_{name}.json").read_text())
    return ptx, man


def launch(ptx, man, args):
    return run_ptx(ptx, None, args, grid=man["grid"], block=man["block"], cluster=man["cluster"])


def inputs(man):
    rng = np.random.default_rng(10)
    return [rng.standard_normal(p["shape"]).astype(np.float32) for p in man["params"]]


@pytest.mark.parametrize("name", ["add", "reverse", "pingpong"])
def test_cute_ptx_assembles(name, assemble):
    assemble(load(name)[0])


def test_cute_add():
    ptx, man = load("add")
    a, b, c = inputs(man)
    launch(ptx, man, [a, b, c])
    assert np.array_equal(c, a + b)


def test_cute_reverse_through_an_inlined_mbarrier_wait():
    ptx, man = load("reverse")
    assert ptx.count("LAB_WAIT:") == 1 and ".reg .pred       P1;" in ptx
    a, c = inputs(man)
    launch(ptx, man, [a, c])
    assert np.array_equal(c, (a.reshape(2, 128)[:, ::-1] * np.float32(2)).reshape(-1))


def test_cute_pingpong_repeats_the_inlined_wait():
    """Three copies of `{ .reg .pred P1; LAB_WAIT: ... DONE: }` in one kernel, phases 0 and 1 of
    two mbarriers, then a warp sum by shfl.sync.bfly (summed here in the same order)."""
    ptx, man = load("pingpong")
    assert ptx.count("LAB_WAIT:") == 3 and ptx.count("DONE:") == 3
    a, c = inputs(man)
    launch(ptx, man, [a, c])
    x, y = a[:32], a[32:]
    v = x * y
    lanes = np.arange(32)
    for offset in (16, 8, 4, 2, 1):
        v = v + v[lanes ^ offset]
    assert np.array_equal(c, v + x)


@pytest.mark.parametrize("name,block", [("add", (64, 1, 1)), ("pingpong", (128, 1, 1))])
def test_cute_reqntid_is_enforced(name, block):
    ptx, man = load(name)
    want = ", ".join(map(str, man["block"]))
    with pytest.raises(EmulationError, match=rf"differs from the kernel's \.reqntid {want}"):
        run_ptx(ptx, None, inputs(man), grid=man["grid"], block=block)
