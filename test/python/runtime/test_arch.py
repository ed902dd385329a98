"""Arch / compute-capability compatibility table and refusal messages (pure logic)."""
import pytest

from tile_mlir.runtime.arch import can_run, parse_arch, refusal_message, resolve_arch


@pytest.mark.parametrize("arch,cc,expected", [
    ("sm_100a", (10, 0), (True, "cubin")),
    ("sm_100a", (9, 0), (False, None)),
    ("sm_100a", (10, 3), (False, None)),  # arch-specific: exactly one chip
    ("sm_100a", (12, 0), (False, None)),
    ("sm_100f", (10, 0), (True, "cubin")),
    ("sm_100f", (10, 3), (True, "cubin")),
    ("sm_103f", (10, 0), (False, None)),
    ("sm_100f", (12, 0), (False, None)),
    ("sm_90a", (9, 0), (True, "cubin")),
    ("sm_90a", (10, 0), (False, None)),
    ("sm_90a", (8, 9), (False, None)),
    ("sm_90", (9, 0), (True, "cubin")),
    ("sm_90", (10, 0), (True, "ptx")),  # new major: JIT the PTX
    ("sm_80", (8, 6), (True, "cubin")),
    ("sm_80", (7, 5), (False, None)),
    ("sm_120", (12, 0), (True, "cubin")),
])
def test_can_run(arch, cc, expected):
    assert can_run(arch, cc) == expected


def test_parse_arch():
    a = parse_arch("sm_100a")
    assert (a.major, a.minor, a.suffix, a.sm) == (10, 0, "a", 100)
    assert parse_arch("sm_90a").sm == 90
    assert parse_arch("sm_120").major == 12
    for bad in ("sm100a", "compute_90", "sm_9", "sm_90x", ""):
        with pytest.raises(ValueError, match="unknown GPU architecture"):
            parse_arch(bad)


def test_refusal_message_names_both():
    msg = refusal_message("sm_100a", "NVIDIA H200", (9, 0))
    assert msg == ("cubin for sm_100a cannot run on NVIDIA H200 (compute capability 9.0): "
                   "use backend='sim' or an sm_100 GPU")
    assert "an sm_90 GPU" in refusal_message("sm_90a", "NVIDIA B200", (10, 0))


def test_resolve_arch(monkeypatch):
    monkeypatch.delenv("TILE_MLIR_ARCH", raising=False)
    assert resolve_arch("auto") == "sm_100a"
    assert resolve_arch(None) == "sm_100a"
    assert resolve_arch("sm_90a") == "sm_90a"
    monkeypatch.setenv("TILE_MLIR_ARCH", "sm_90a")
    assert resolve_arch("auto") == "sm_90a"
    with pytest.raises(ValueError):
        resolve_arch("hopper")
