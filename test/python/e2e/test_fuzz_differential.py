"""Differential fuzzing (hypothesis): random smem -> tmem copies of every tcgen05.cp shape (cp_fuzz.py),
compiled for sm_100a and emulated on tile-sim, against a numpy expectation from logical coordinates
(e2e_kernels.expected); random invalid copies must be rejected by the dispatch with a diagnostic naming
the expected check, never crash. bench/fuzz.py runs the same generator at scale (--cases N --seed S;
bench/results/fuzz-3000-2026-12-01.txt).

A small sample keeps this file's share of `make test` small (TILE_MLIR_FUZZ_EXAMPLES and
TILE_MLIR_FUZZ_INVALID_EXAMPLES raise it); ptxas runs on every 8th accepted example (bench/fuzz.py assembles all).
"""
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cp_fuzz import CHECK_RE as _CHECK
from cp_fuzz import INVALID_CHECK, INVALID_KINDS, random_case, run_case
from e2e_kernels import find_ptxas
from tile_mlir import env
from tile_mlir.diagnostics import TileError

PTXAS = find_ptxas()
_count = [0]


class DrawChooser:
    """The e2e_kernels chooser API over hypothesis draws (so failures shrink)."""

    def __init__(self, data):
        self.data = data

    def int(self, lo, hi):
        return self.data.draw(st.integers(lo, hi))

    def pick(self, seq):
        return self.data.draw(st.sampled_from(list(seq)))

    def bool(self, p=0.5):
        return self.data.draw(st.integers(0, 999)) < int(p * 1000)


def _first_error(e: TileError) -> str:
    errs = [d for d in e.diagnostics if d.severity == "error"]
    assert errs, f"TileError without error diagnostics: {e}"
    return errs[0].message


@pytest.mark.slow  # a fuzzing campaign
@settings(max_examples=int(env.get("TILE_MLIR_FUZZ_EXAMPLES")), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_valid_copies_match_numpy(data):
    case = random_case(DrawChooser(data), None)
    _count[0] += 1
    use = PTXAS if (_count[0] % 8 == 1) else None
    try:
        out = run_case(case, seed=_count[0], ptxas_exe=use)
    except TileError as e:  # valid by construction: a decline is a bug of the planner or of the generator
        raise AssertionError(f"valid copy declined: {case}\n{_first_error(e)}") from None
    assert not out.mismatches(), f"{case}\n" + "\n".join(out.mismatches())


@settings(max_examples=int(env.get("TILE_MLIR_FUZZ_INVALID_EXAMPLES")), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(INVALID_KINDS))
def test_invalid_copies_are_rejected_by_the_named_check(data, kind):
    case = random_case(DrawChooser(data), kind)
    try:
        run_case(case, seed=0)
    except TileError as e:
        msg = _first_error(e)
        m = _CHECK.search(msg)
        assert "dispatch" in msg and m, msg
        assert m.group(1) == INVALID_CHECK[kind], f"{kind}: {msg}"
        return
    raise AssertionError(f"invalid copy ({kind}) was accepted: {case}")
