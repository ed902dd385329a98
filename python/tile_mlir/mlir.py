"""The one module of tile_mlir that imports MLIR Python bindings; everything else imports from here.

Two providers of the upstream MLIR Python API are accepted (docs/providers.md), chosen with
``TILE_MLIR_BINDINGS``:

* ``cutlass`` (default): the bindings bundled in nvidia-cutlass-dsl as ``cutlass._mlir`` (LLVM 23,
  libNVVM and an embedded ptxas). Importing ``cutlass`` runs the whole CuTe DSL package (about 0.9 s of
  start-up for nothing we use), so we load ``cutlass._mlir`` under a deferred ``cutlass`` package whose
  ``__init__`` runs only when something other than the bindings is used, after doing the one
  initialisation step that ``__init__`` performs for the bindings (``_cutlass_ir.populate``, which is
  idempotent).
* ``upstream`` (alias ``mlir``): the upstream ``mlir`` Python package (xtc-mlir-python-bindings, LLVM
  22: PTX from LLVM's NVPTX backend, ptxas run as a program); used as well when nvidia-cutlass-dsl is
  absent.

What differs between them is adapted here, in SHIMS, and nowhere else: the rest of the package calls
the shims and never asks which provider it runs on.
"""
from __future__ import annotations

import functools
import importlib
import importlib.util
import io
import os
import re
import sys
import types

from . import env as _env
from .lazy import LazyModule

__all__ = [
    "BINDINGS", "PROVIDERS", "ir", "passmanager", "rewrite", "nvvm", "llvm", "gpu", "arith", "scf", "func",
    "register_dialect", "register_operation", "MLIRError", "ObjectAttr", "registered_dialects",
    "llvm_version", "SHIMS", "llvm_array_type", "llvm_function_type", "mma_kind_attr", "init_mlir_error",
    "binary_pass", "operand_segments", "parse_guard", "llvm_ir", "nvvm_f32_ops",
]

# TILE_MLIR_BINDINGS values: a provider's name, or an alias of one
PROVIDERS = {"cutlass": "cutlass", "upstream": "upstream", "mlir": "upstream"}


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
    if choice and choice not in PROVIDERS:
        raise ImportError(f"TILE_MLIR_BINDINGS={choice!r}: expected 'cutlass' or 'upstream' (alias 'mlir')")
    provider = PROVIDERS.get(choice)
    if provider == "cutlass":
        return "cutlass", _load_cutlass()
    if provider == "upstream":
        return "upstream", _import_all("mlir")
    try:
        return "cutlass", _load_cutlass()
    except ImportError:
        return "upstream", _import_all("mlir")


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


def llvm_version() -> str:
    """The LLVM version the bindings were built from, e.g. '23.0.0git': the producer that MLIR's bytecode
    writer records ("MLIR" + LLVM's version string), the same on every provider."""
    with ir.Context(), ir.Location.unknown():
        buf = io.BytesIO()
        ir.Module.create().operation.write_bytecode(buf)
    data = buf.getvalue()
    # magic "ML\xefR", the bytecode version (a varint: bytes with the high bit set, then one without)
    i = 4
    while data[i] & 0x80:
        i += 1
    producer = data[i + 1:data.index(b"\0", i + 1)].decode()
    return producer.removeprefix("MLIR")


# ----------------------------------------------------------------------------------- provider shims
# Every difference between the providers, one function per provider each; test/python/providers/test_providers.py
# tests each. cutlass is LLVM 23 (main, 2026), upstream LLVM 22.1.


def _dialect(name: str):
    return __getattr__(name)


def _array_type_built(elem, n: int):
    return _dialect("llvm").ArrayType.get(elem, n)


def _array_type_parsed(elem, n: int):
    return ir.Type.parse(f"!llvm.array<{int(n)} x {elem}>")


def _function_type_built(result, params):
    return _dialect("llvm").FunctionType.get(result, list(params))


def _function_type_parsed(result, params):
    return ir.Type.parse(f"!llvm.func<{result} ({', '.join(str(p) for p in params)})>")


# tcgen05.mma's kinds (PTX ISA .kind::...): every one of them is an #nvvm.tcgen05_mma_kind in LLVM 23;
# LLVM 22's block_scale op takes its own attribute for the three block-scaled ones.
_MMA_KINDS = ("f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4")


def _mma_kind_23(kind: str, block_scale: bool):
    if kind not in _MMA_KINDS:
        raise ValueError(f"unknown tcgen05.mma kind {kind!r}")
    return ir.Attribute.parse(f"#nvvm.tcgen05_mma_kind<{kind}>")


def _mma_kind_22(kind: str, block_scale: bool):
    if kind not in _MMA_KINDS:
        raise ValueError(f"unknown tcgen05.mma kind {kind!r}")
    return ir.Attribute.parse(f"#nvvm.{'block_scale_kind' if block_scale else 'tcgen05_mma_kind'}<{kind}>")


def _init_error_any(err, message: str, diagnostics: list) -> None:
    MLIRError.__init__(err, message)  # cutlass's MLIRError takes anything


def _init_error_two(err, message: str, diagnostics: list) -> None:
    """Upstream's MLIRError.__init__(message, error_diagnostics) only stores the two as attributes, which
    a subclass may define as properties instead."""
    Exception.__init__(err, message)
    for name, value in (("message", message), ("error_diagnostics", diagnostics)):
        if not isinstance(getattr(type(err), name, None), property):
            setattr(err, name, value)


def _binary_pass_embedded(fmt: str) -> str:
    return f"gpu-module-to-binary{{format={fmt}}}"  # libNVVM and ptxas are inside the library


def _binary_pass_toolkit(fmt: str) -> str:
    """LLVM's NVPTX backend makes the PTX; ptxas, for a cubin, is run as a program, looked up under
    toolkit=<root>/bin, then PATH: the pip package's ptxas (toolchain.find_tool) is in neither."""
    from .driver.toolchain import find_tool  # noqa: PLC0415

    ptxas = find_tool("ptxas")
    root = os.path.dirname(os.path.dirname(ptxas)) if ptxas else ""
    if fmt != "bin" or not root or '"' in root:  # (a quote would end the option's value: PATH only then)
        return f"gpu-module-to-binary{{format={fmt}}}"
    return f'gpu-module-to-binary{{format={fmt} toolkit="{root}"}}'


@functools.cache
def _segments_of(name: str):
    """The provider's operand segments of op `name` (None: the op takes no operandSegmentSizes)."""
    dialect = name.split(".", 1)[0]
    gen = importlib.import_module(f"{_ROOT}.dialects._{dialect}_ops_gen")
    for cls in vars(gen).values():
        if getattr(cls, "OPERATION_NAME", None) == name:
            return getattr(cls, "_ODS_OPERAND_SEGMENTS", None)
    raise ValueError(f"the bindings define no op {name!r}")


def _operand_segments(name: str, sizes) -> dict:
    """{"operandSegmentSizes": sizes} where the provider's op has operand segments, else {} (then at
    most the last of its optional operands may be given, and positionally)."""
    segments = _segments_of(name)
    if segments is None:
        return {}
    if len(segments) != len(sizes):
        raise ValueError(f"{name}: {len(segments)} operand segments, not {len(sizes)}")
    return {"operandSegmentSizes": ir.DenseI32ArrayAttr.get(list(sizes))}


def _parse_guard_none(text: str):
    return None


def _parse_guard_22(text: str):
    """LLVM 22's parser aborts the process (an assertion in Type::getIntOrFloatBitWidth) on a dense
    array of `index` elements; LLVM 23's reports it. The same diagnostic, before the parser sees it."""
    if "index" not in text:  # the common case
        return None
    from .frontend.text_checks import _STRINGS_AND_COMMENTS, TextProblem, _line_col  # noqa: PLC0415

    bare = _STRINGS_AND_COMMENTS.sub(lambda piece: " " * len(piece.group()), text)
    m = re.search(r"\barray\s*<\s*(index)\b", bare)
    if m is None:
        return None
    line, col = _line_col(text, m.start(1))
    return TextProblem(line, col, "expected integer or float type, got: 'index'")


def _llvm_ir_cext(op) -> str:
    return importlib.import_module(f"{_ROOT}._mlir_libs._cutlass_ir")._mlirDialectsLLVM.translate_module_to_llvmir(op)


def _llvm_ir_dialect(op) -> str:
    return importlib.import_module(f"{_ROOT}.dialects.llvm").translate_module_to_llvmir(op)


SHIMS = {  # name: (what differs, cutlass's, upstream's)
    "llvm_array_type": ("(elem, n) -> !llvm.array<n x elem>: LLVM 22's llvm module has no ArrayType",
                        _array_type_built, _array_type_parsed),
    "llvm_function_type": ("(result, params) -> !llvm.func<...>: LLVM 22's llvm module has no FunctionType",
                           _function_type_built, _function_type_parsed),
    "mma_kind_attr": ("(kind, block_scale) -> tcgen05.mma's kind attribute: #nvvm.tcgen05_mma_kind<k> in "
                      "LLVM 23, #nvvm.block_scale_kind<k> for LLVM 22's block_scale op",
                      _mma_kind_23, _mma_kind_22),
    "init_mlir_error": ("(err, message, diagnostics): an MLIRError subclass's base __init__; upstream's "
                        "requires the diagnostics", _init_error_any, _init_error_two),
    "binary_pass": ("(format) -> gpu-module-to-binary's pipeline text: upstream's needs toolkit= to find "
                    "ptxas for format=bin", _binary_pass_embedded, _binary_pass_toolkit),
    "operand_segments": ("(op name, sizes) -> its operandSegmentSizes attribute, or none where the op has no "
                         "segments: LLVM 23 gave mbarrier.arrive / arrive.expect_tx a multicast-mask operand, "
                         "LLVM 22's have one optional operand", _operand_segments, _operand_segments),
    "parse_guard": ("(text) -> a TextProblem for input the provider's parser would abort on, or None: "
                    "LLVM 22's asserts on array<index: ...>", _parse_guard_none, _parse_guard_22),
    "llvm_ir": ("(op of LLVM-dialect functions) -> its LLVM IR text: upstream's llvm dialect module has "
                "translate_module_to_llvmir, cutlass's only its extension module", _llvm_ir_cext, _llvm_ir_dialect),
    "nvvm_f32_ops": ("True where the NVVM ops of register math (addf, subf, fma, ex2, log2, the packed f32x2 "
                     "forms) translate to LLVM IR: LLVM 22 has the ops but no translation, so the "
                     "lowering calls their intrinsics, which LLVM 22 has for the scalar forms only", True, False),
}
_MINE = 1 if BINDINGS == "cutlass" else 2
llvm_array_type = SHIMS["llvm_array_type"][_MINE]
llvm_function_type = SHIMS["llvm_function_type"][_MINE]
mma_kind_attr = SHIMS["mma_kind_attr"][_MINE]
init_mlir_error = SHIMS["init_mlir_error"][_MINE]
binary_pass = SHIMS["binary_pass"][_MINE]
operand_segments = SHIMS["operand_segments"][_MINE]
parse_guard = SHIMS["parse_guard"][_MINE]
llvm_ir = SHIMS["llvm_ir"][_MINE]
nvvm_f32_ops = SHIMS["nvvm_f32_ops"][_MINE]


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
