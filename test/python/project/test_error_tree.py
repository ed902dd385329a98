"""One error tree: every exception class of the package derives from TileMLIRError (errors.py), except the
few that never leave it, each listed here with the reason; the command-line tools share one UsageError."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import tile_mlir
from tile_mlir.errors import TileMLIRError, UsageError

# Raised and caught inside the package; a user never sees them.
INTERNAL = {
    "tile_mlir.dialect.decline.Decline": "a dispatch variant declining: dispatch turns it into a table row",
    "tile_mlir.opt.bytecode_checks._Truncated": "the bytecode reader's end-of-input signal, caught by its caller",
    "tile_mlir.lowering.registers.StoreError": "a register-store plan refused: the copy lowering reports it "
                                               "as a diagnostic at the op",
    "tile_mlir.opt.reproducer._Bad": "a reproducer pipeline refused: check_pipeline returns its message",
    "tile_mlir.sim.explore.systematic._Abandon": "a systematic run cut by a sleep set: systematic_launch "
                                                 "counts it and goes on",
}
# Modules that need an optional extra (the GPU driver bindings, matplotlib, dask) may not import here.
OPTIONAL = ("cuda", "matplotlib", "dask", "distributed", "mmasim", "torch")


def package_exception_classes():
    found = {}
    for info in pkgutil.walk_packages(tile_mlir.__path__, "tile_mlir."):
        if info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError as e:
            if any(name in str(e) for name in OPTIONAL):
                continue
            raise
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, BaseException) and not issubclass(obj, Warning)
                    and obj.__module__ == info.name):
                found[f"{info.name}.{obj.__qualname__}"] = obj
    return found


def test_every_exception_class_derives_from_tile_mlir_error():
    classes = package_exception_classes()
    assert len(classes) > 15  # the walk found the package's classes
    outside = sorted(name for name, cls in classes.items()
                     if not issubclass(cls, TileMLIRError) and name not in INTERNAL)
    assert not outside, f"exception classes outside TileMLIRError (add them to the tree or to INTERNAL): {outside}"
    stale = sorted(set(INTERNAL) - set(classes))
    assert not stale, f"INTERNAL names classes that no longer exist: {stale}"


def test_one_usage_error():
    usage = [name for name, cls in package_exception_classes().items() if "usage" in name.lower()]
    assert usage == ["tile_mlir.errors.UsageError"]


@pytest.mark.parametrize("module, attr", [
    ("tile_mlir.sim.errors", "EmulationError"),
    ("tile_mlir.lowering.dispatch", "DispatchError"),
    ("tile_mlir.driver.pass_base", "PipelineError"),
    ("tile_mlir.layout.axis", "LayoutError"),
    ("tile_mlir.dialect.types", "TypeParseError"),
    ("tile_mlir.frontend.context", "SourceError"),
])
def test_user_facing_errors_are_tile_mlir_errors(module, attr):
    assert issubclass(getattr(importlib.import_module(module), attr), TileMLIRError)


def test_tile_run_and_tile_opt_share_the_usage_error():
    from tile_mlir.opt import command as opt
    from tile_mlir.runtime import tile_run
    assert tile_run.UsageError is UsageError and opt.UsageError is UsageError
