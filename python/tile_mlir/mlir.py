"""The one module of tile_mlir that imports MLIR Python bindings; everything else imports from here.

Two providers of the upstream MLIR Python API are accepted:

* ``cutlass`` (default): the bindings bundled in nvidia-cutlass-dsl as ``cutlass._mlir``. Importing
  ``cutlass`` runs the whole CuTe DSL package (about 0.9 s of start-up for nothing we use), so we load
  ``cutlass._mlir`` under a deferred ``cutlass`` package whose ``__init__`` runs only when something
  other than the bindings is used, after doing the one initialisation step that ``__init__`` performs
  for the bindings (``_cutlass_ir.populate``, which is idempotent).
* ``mlir``: the upstream ``mlir`` Python package, chosen with ``TILE_MLIR_BINDINGS=mlir`` or used
  automatically when nvidia-cutlass-dsl is absent.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import types

from . import env as _env
from .lazy import LazyModule

__all__ = [
    "BINDINGS", "ir", "passmanager", "rewrite", "nvvm", "llvm", "gpu", "arith", "scf", "func",
    "register_dialect", "register_operation", "MLIRError", "ObjectAttr", "registered_dialects",
]


_SUBMODULES = ("ir", "passmanager", "rewrite", "dialects._ods_common")
# Imported on first use (`tile_mlir.mlir.nvvm`): parsing and verifying need none of them.
_LAZY = {"nvvm": "dialects.nvvm", "llvm": "dialects.llvm", "gpu": "dialects.gpu", "arith": "dialects.arith",
         "scf": "dialects.scf", "func": "dialects.func"}


class _NoNumpy:
    """Meta-path finder refusing `numpy` while the bindings' ir.py loads (see skip_numpy_builders)."""

    def find_spec(self, name, path=None, target=None):
        if name == "numpy" or name.startswith("numpy."):
            raise ImportError("numpy withheld while loading MLIR bindings for a command-line tool")
        return None


# Command-line tools set this before importing us: the bindings' ir.py imports numpy (~150 ms) only to
# register dense-elements attribute builders that tile_mlir never uses. Library users keep them.
skip_numpy_builders = _env.get("TILE_MLIR_FAST_START") == "1"


def _import_all(root: str):
    return {name: importlib.import_module(f"{root}.{name}") for name in _SUBMODULES}


class _DeferredCutlass(types.ModuleType):
    """The `cutlass` package with its `__init__` not yet run.

    The bindings import dialect modules lazily (e.g. `cutlass._mlir.dialects.builtin` the first time a
    module op is seen), so `cutlass` must stay importable as a package. The real `__init__` (the CuTe
    DSL) runs on first use of anything else, so `import cutlass` by the user still behaves as usual.
    """

    def __getattr__(self, name: str):
        if self.__dict__.get("_tile_mlir_materialized"):
            raise AttributeError(name)
        self.__dict__["_tile_mlir_materialized"] = True
        init = self.__dict__["__file__"]
        with open(init, encoding="utf-8") as f:
            code = compile(f.read(), init, "exec")
        exec(code, self.__dict__)  # noqa: S102  (the package's own __init__, run as import would)
        return getattr(self, name)


def _load_cutlass():
    if "cutlass" not in sys.modules:
        spec = importlib.util.find_spec("cutlass")
        if spec is None or not spec.submodule_search_locations:
            raise ImportError("nvidia-cutlass-dsl is not installed")
        pkg = _DeferredCutlass("cutlass")
        pkg.__file__ = spec.origin
        pkg.__path__ = list(spec.submodule_search_locations)
        pkg.__spec__ = spec
        pkg.__package__ = "cutlass"
        sys.modules["cutlass"] = pkg
        try:
            from cutlass._mlir._mlir_libs import _cutlass_ir  # noqa: PLC0415

            _cutlass_ir.populate(_cutlass_ir)
        except BaseException:
            del sys.modules["cutlass"]
            raise
    return _import_all("cutlass._mlir")


def _load(choice: str):
    if choice == "cutlass":
        return "cutlass", _load_cutlass()
    if choice == "mlir":
        return "mlir", _import_all("mlir")
    if choice:
        raise ImportError(f"TILE_MLIR_BINDINGS={choice!r}: expected 'cutlass' or 'mlir'")
    try:
        return "cutlass", _load_cutlass()
    except ImportError:
        return "mlir", _import_all("mlir")


def _load_fast(choice: str):
    """_load, with numpy withheld when skip_numpy_builders (the bindings' ir.py is first imported from
    inside the cutlass package's initialisation, so the whole load is covered)."""
    if not skip_numpy_builders or "numpy" in sys.modules:
        return _load(choice)
    blocker = _NoNumpy()
    sys.meta_path.insert(0, blocker)
    try:
        return _load(choice)
    finally:
        sys.meta_path.remove(blocker)


BINDINGS, _mods = _load_fast((_env.get("TILE_MLIR_BINDINGS") or "").strip().lower())
_ROOT = "cutlass._mlir" if BINDINGS == "cutlass" else "mlir"
ir = _mods["ir"]
passmanager = _mods["passmanager"]
rewrite = _mods["rewrite"]
_ods = _mods["dialects._ods_common"]

register_dialect = _ods._cext.register_dialect
register_operation = _ods._cext.register_operation
MLIRError = ir.MLIRError


def registered_dialects(context) -> list[str]:
    """Namespaces of the dialects registered with `context` (what mlir-opt --show-dialects lists). The
    bindings cannot enumerate a registry, so candidates come from their generated op modules
    (`_<namespace>_ops_gen.py`), each confirmed with the context."""
    import re

    found = set()
    for folder in importlib.import_module(f"{_ROOT}.dialects").__path__:
        for entry in os.listdir(folder):
            m = re.fullmatch(r"_(\w+?)_ops_gen\.py", entry)
            if m:
                try:
                    context.get_dialect_descriptor(m.group(1))
                except ValueError:
                    continue
                found.add(m.group(1))
    return sorted(found)


def __getattr__(name: str):
    if name in _LAZY:
        # a stand-in that imports the dialect module at its first use: `from ..mlir import llvm` at the top
        # of a lowering costs nothing until the lowering runs (tile-opt --help loads none of them)
        mod = LazyModule(f"{_ROOT}.{_LAZY[name]}")
        globals()[name] = mod
        return mod
    if name == "ObjectAttr":
        return __getattr__("gpu").ObjectAttr
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
