"""The self-test artifacts through the real PTX emulator (tile_mlir.sim), when it is present:
the same inputs/expected files bench/gpu/run_artifacts.py checks on the GPU."""
import numpy as np
import pytest

from conftest import load_selftest
from test_gpu import SELFTESTS, inputs_expected
from tile_mlir.runtime import jit


@pytest.fixture(scope="module", autouse=True)
def _need_sim():
    try:
        from tile_mlir.sim import run_ptx  # noqa: F401
    except ImportError as e:
        pytest.skip(f"tile_mlir.sim.run_ptx unavailable: {e}")


@pytest.mark.parametrize("name", SELFTESTS)
def test_selftest_on_emulator(name):
    art = load_selftest(name)
    inputs, expected = inputs_expected(name)
    args = [inputs[p.name].item() if p.kind == "scalar" else inputs[p.name].copy()
            for p in art.params]
    k = jit(art, backend="sim")
    res = k(*args)
    assert res.backend == k.last_backend == "sim" and res.sim is not None
    for n, want in expected.items():
        np.testing.assert_array_equal(res[n], want)
