"""tile_mlir.sim must stay an independent oracle: numpy + stdlib only, nothing from the layout
algebra, the dialect, the lowering or the MLIR bindings (docs/emulator.md §2; docs/design.md §7)."""

import ast
import pathlib

import tile_mlir.sim as sim

ALLOWED_TOP = {"numpy", "__future__", "re", "os", "sys", "math", "struct", "bisect", "warnings",
               "dataclasses", "typing", "time", "gc", "contextlib", "functools"}
#: the one module that computes tensor-core arithmetic, with MMA-Sim (docs/emulator.md §10)
NUMERICS = {"mma_numerics.py": {"torch", "mmasim"},
            "mma_fast.py": {"ctypes", "threading"},  # to pin OpenBLAS to one thread
            "pool.py": {"atexit", "multiprocessing", "concurrent"},  # the worker processes
            "progress.py": {"contextlib", "tqdm"},
            "pure_memo.py": {"hashlib", "contextlib"},  # explore: MMA results keyed by digests
            "approx_tables.py": {"lzma"},  # the measured .approx tables are stored compressed
            "driver.py": {"copy", "tqdm", "collections"},  # explore/: a launch's arguments per schedule; chunks in flight
            "policy.py": {"random"},  # explore/: schedules drawn from (seed, index)
            "blame.py": {"copy"}, "reuse.py": {"copy"},  # explore/: a launch's arguments per run
            "run_args.py": {"numbers"},  # (numbers.Real: run_ptx's max_seconds)
            "wgmma.py": {"itertools", "operator"},
            "tcgen05_mma.py": {"functools"},  # (the scale factors' cell maps, kept per geometry)  # (identity over a register slice at C speed)
            # the ISA coverage table and its command (docs/emulator.md §13)
            "table.py": {"json", "collections", "functools"}, "markdown.py": {"collections"},
            "__main__.py": {"argparse"}}


def test_sim_imports_only_numpy_stdlib_and_itself():
    root = pathlib.Path(sim.__file__).parent
    for f in root.rglob("*.py"):
        tree = ast.parse(f.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative import inside tile_mlir.sim
                    continue
                names = [node.module]
            else:
                continue
            for n in names:
                top = n.split(".")[0]
                assert top in ALLOWED_TOP | NUMERICS.get(f.name, set()), f"{f.name} imports {n}"
