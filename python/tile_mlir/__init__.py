"""tile_mlir: a tile dialect lowered to tcgen05 for sm_100a, with a PTX emulator and a JIT runner.

    tile_mlir.compile(source, arch="sm_100a") -> Artifact (PTX, cubin, params, launch shape)
    tile_mlir.jit(source_or_artifact, arch="auto", backend="auto") -> JitKernel
    kernel(A, out) or kernel(A=a, out=o) -> LaunchResult     (the names the program gives)
    tile_mlir.gemm(a, b, out=None) -> D = A . B^T            (the GEMM library, tile_mlir/gemm/)

``source`` is tile IR text, a path to a .mlir file (a str naming an existing file, or an
os.PathLike), UTF-8 bytes, or an MLIR module (tile_mlir.frontend.source). Every error raised on purpose is
a TileMLIRError; a bad argument is an ArgumentError (a ValueError; ArgumentTypeError, also a
TypeError, for a wrong type), a failed compile a TileError with its diagnostics, a failed run a
TileRuntimeError (tile_mlir.errors). A compile that succeeds with warnings raises each as a
TileWarning through Python's warnings module.

Attributes load lazily: importing tile_mlir alone loads no MLIR bindings and no CUDA.
"""
__version__ = "0.1.0"
__all__ = ["compile", "jit", "Artifact", "Param", "JitKernel", "LaunchResult", "TileMLIRError",
           "ArgumentError", "ArgumentTypeError", "TileError", "TileRuntimeError", "CudaError",
           "SimRunError", "TileWarning", "gemm"]

# public name -> the module that defines it (imported at first use)
_HOMES = {
    "compile": ".driver.compiler", "jit": ".runtime", "JitKernel": ".runtime", "LaunchResult": ".runtime",
    "Artifact": ".artifact", "Param": ".artifact", "TileError": ".diagnostics", "TileWarning": ".diagnostics",
    "TileMLIRError": ".errors", "ArgumentError": ".errors", "ArgumentTypeError": ".errors",
    "TileRuntimeError": ".runtime.errors", "CudaError": ".runtime.errors",
    "SimRunError": ".runtime.errors",
}


def __getattr__(name):
    if name == "gemm":  # (the subpackage, itself callable: tile_mlir.gemm(a, b))
        import importlib
        return importlib.import_module(".gemm", __name__)
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'tile_mlir' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value  # the next look-up is a plain attribute
    return value


def __dir__():
    return sorted(["__version__", *__all__])
