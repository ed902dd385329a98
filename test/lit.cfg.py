# lit configuration for tile_mlir (lit and filecheck from PyPI; run through `make test` or `make check-lit`).
import os
import shutil
import sys

import lit.formats

config.name = "tile_mlir"
# lit 23 refuses ShTest(execute_external=True): use lit's internal shell.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "lit.local.cfg", "python", "Inputs", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(__file__), "Output")

root = os.path.dirname(config.test_source_root)
bindir = os.path.dirname(sys.executable)  # the venv's bin/, where tile-opt and filecheck are installed
config.environment["PATH"] = os.pathsep.join([bindir, os.path.join(root, "tools"), config.environment.get("PATH", "")])
config.environment["PYTHONPATH"] = os.path.join(root, "python")
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"
config.environment["TILE_MLIR_CACHE"] = "0"  # tile-run compiles every time, never into the user's cache
for var in ("TILE_MLIR_BINDINGS", "HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]


def _tool(name):
    path = os.path.join(bindir, name)
    return path if os.path.exists(path) else shutil.which(name)


# FileCheck is the PyPI filecheck package; tests spell it as LLVM's.
config.substitutions.append(("FileCheck", _tool("filecheck") or "filecheck"))
config.substitutions.append(("%PYTHON", sys.executable))
config.substitutions.append(("%root", root))


sys.path.insert(0, os.path.join(root, "python"))
from tile_mlir.driver.toolchain import find_tool  # noqa: E402  (pip packages first, then PATH)

ptxas = find_tool("ptxas")
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
# nvdisasm (nvidia-cuda-nvdisasm package) for SASS checks through `tile-run --dump-sass`
if find_tool("nvdisasm"):
    config.available_features.add("nvdisasm")
# the provider's NVVM register-math ops (addf, fma, ex2, the packed f32x2 forms) translate to LLVM IR; where
# they do not (LLVM 22), the lowering calls scalar intrinsics (tile_mlir.mlir's nvvm_f32_ops shim)
from tile_mlir import mlir as _mlir  # noqa: E402  (TILE_MLIR_BINDINGS chooses, as in every RUN line)

if _mlir.nvvm_f32_ops:
    config.available_features.add("nvvm-f32-ops")
# upstream mlir-opt of LLVM 22 (Debian mlir-22-tools) loads lib/TileOps.irdl in test/IRDL
if shutil.which("mlir-opt-22", path=config.environment["PATH"]):
    config.available_features.add("mlir-opt-22")
