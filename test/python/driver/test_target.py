"""tile_mlir.target: chip names and the PTX ISA's feature table (pure Python, no MLIR)."""
import subprocess
import sys

import pytest

from tile_mlir.target import DEFAULT_ARCH, parse_arch

# chip -> (cp.async, TMA, clusters, wgmma, tcgen05)
FEATURES = {
    "sm_75": (False, False, False, False, False),
    "sm_80": (True, False, False, False, False),
    "sm_86": (True, False, False, False, False),
    "sm_90": (True, True, True, False, False),
    "sm_90a": (True, True, True, True, False),
    "sm_100": (True, True, True, False, False),
    "sm_100a": (True, True, True, False, True),
    "sm_100f": (True, True, True, False, True),
    "sm_101a": (True, True, True, False, True),
    "sm_101f": (True, True, True, False, True),
    "sm_103a": (True, True, True, False, True),
    "sm_103f": (True, True, True, False, True),
    "sm_110a": (True, True, True, False, True),
    "sm_110f": (True, True, True, False, True),
    "sm_120a": (True, True, True, False, False),
    "sm_120": (True, True, True, False, False),
}


@pytest.mark.parametrize("chip", sorted(FEATURES))
def test_feature_table(chip):
    a = parse_arch(chip)
    assert (a.has_cp_async, a.has_tma, a.has_clusters, a.has_wgmma, a.has_tcgen05) == FEATURES[chip]


def test_default_arch_has_tcgen05():
    assert parse_arch(DEFAULT_ARCH).has_tcgen05


@pytest.mark.parametrize("bad", ["sm100a", "compute_90", "sm_9", "sm_90x", "", "hopper", "sm_100a,sm_90a"])
def test_unknown_chip_is_a_value_error(bad):
    with pytest.raises(ValueError, match="unknown GPU architecture"):
        parse_arch(bad)


def test_imports_no_mlir_bindings():
    code = "import sys, tile_mlir.target; print(any(m.startswith(('cutlass', 'mlir')) for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("chip", ["sm_91a", "sm_95", "sm_80a", "sm_90f", "sm_104a"])
def test_a_chip_that_does_not_exist_is_refused_with_the_supported_ones(chip):
    with pytest.raises(ValueError, match=rf"unknown GPU architecture '{chip}': no such chip; supported: sm_75, "):
        parse_arch(chip)
