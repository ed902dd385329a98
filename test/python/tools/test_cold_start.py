"""Cold start (issue 23 item 10, issue 35): `tile-opt --help` imports neither numpy, nor the MLIR bindings,
nor any pass (it lists them from driver/pass_specs.py); --tile-to-ptx still works. The times are
bench/startup.py's (no timed test)."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
PROBE = """
import sys, runpy
sys.argv = ["tile-opt", *{args!r}]
try:
    runpy.run_path({tool!r}, run_name="__main__")
except SystemExit:
    pass
mods = [m for m in ("numpy", "cutlass._mlir.dialects.llvm", "cutlass._mlir.dialects.nvvm",
                    "mlir.dialects.llvm", "mlir.dialects.nvvm", "cutlass._mlir", "mlir.ir", "tile_mlir.mlir",
                    "tile_mlir.driver.pass_base", "tile_mlir.driver.passes") if m in sys.modules]
print("LOADED:", " ".join(mods), file=sys.stderr)
"""


def _loaded(*args) -> tuple[str, list[str]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    out = subprocess.run([sys.executable, "-c", PROBE.format(args=list(args), tool=str(ROOT / "tools" / "tile-opt"))],
                         capture_output=True, text=True, timeout=120, env=env)
    line = [ln for ln in out.stderr.splitlines() if ln.startswith("LOADED:")]
    assert line, out.stderr
    return out.stdout, line[-1].split()[1:]


def test_help_imports_no_numpy_nor_bindings_nor_passes():
    text, loaded = _loaded("--help")
    assert "--convert-tile-to-nvvm" in text and "--tile-lower-gemm-async" in text
    assert "all-variants=<value>" in text and "= tile-verify,tile-lower-copy-async" in text
    assert loaded == []


def test_pass_specs_are_the_registered_passes():
    """--help's list (pass_specs) is the registry's, and each pass class says what its spec says."""
    from tile_mlir.driver.pass_specs import PASSES
    from tile_mlir.driver.passes import passes

    registered = passes()
    assert list(registered) == list(PASSES)
    for name, cls in registered.items():
        assert cls.name == name
        assert (cls.description, cls.OPTIONS) == (PASSES[name].description, PASSES[name].options)


def test_tile_to_ptx_still_compiles():
    text, _ = _loaded(str(ROOT / "examples" / "demo.mlir"), "--tile-to-ptx")
    assert ".entry demo(" in text and "tcgen05.cp.cta_group::1.32x128b.warpx4" in text


def test_lazy_module_proxy():
    from tile_mlir.lazy import LazyModule
    mod = LazyModule("json")
    assert "lazy module 'json'" in repr(mod)
    assert mod.dumps([1]) == "[1]" and "dumps" in mod.__dict__  # the namespace is held afterwards
