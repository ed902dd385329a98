"""tile_mlir: a tile dialect lowered to tcgen05 for sm_100a, with a PTX emulator and a JIT runner.

    tile_mlir.compile(text_or_module, arch="sm_100a") -> Artifact (PTX, cubin, signature, launch shape)
    tile_mlir.jit(text_or_module_or_artifact, arch="auto", backend="auto") -> callable kernel

Attributes load lazily: importing tile_mlir alone loads no MLIR bindings.
"""
__version__ = "0.1.0"
__all__ = ["compile", "jit", "Artifact", "TileError"]


def __getattr__(name):
    if name == "compile":
        from .compiler import compile

        return compile
    if name == "jit":
        from .runtime import jit

        return jit
    if name == "Artifact":
        from .artifact import Artifact

        return Artifact
    if name == "TileError":
        from .diagnostics import TileError

        return TileError
    raise AttributeError(f"module 'tile_mlir' has no attribute {name!r}")
