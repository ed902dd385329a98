"""Bug-zoo entries written in tile IR (bench/zoo/tile_ir/*.mlir): each file is the buggy kernel, a
`// BUG` comment on the line its fixed twin drops and a `// FIXED <line>` comment on the line the
twin adds.  Both compile with line info, so a failing schedule's report names the tile IR's
``file:line:col`` besides the PTX line (docs/emulator.md §15).  bench/zoo/run.py explores them as it
does zoo_kernels.BUGS.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
_FIXED = re.compile(r"^(\s*)// FIXED (.*)$")


def source(name: str, fixed: bool) -> str:
    with open(os.path.join(HERE, "tile_ir", name)) as f:
        lines = f.read().split("\n")
    if not fixed:
        return "\n".join(lines)
    out = []
    for ln in lines:
        m = _FIXED.match(ln)
        if ln.rstrip().endswith("// BUG"):
            out.append("  // (dropped by the fix)")
        elif m:
            out.append(m.group(1) + m.group(2))
        else:
            out.append(ln)
    return "\n".join(out)


@lru_cache(maxsize=None)
def _compiled(name: str, fixed: bool):
    import tile_mlir
    path = os.path.relpath(os.path.join(HERE, "tile_ir", name))
    art = tile_mlir.compile(source(name, fixed), arch="sm_100a", filename=path, line_info=True,
                            emit=("ptx",))
    return art.ptx, art.kernel_name, tuple(art.block)


@dataclass
class MlirBug:
    what: str
    file: str
    narrays: int  # arrays of `words` int32: inputs, then the output
    words: int = 32
    default_finds: bool = False
    strict = True

    def ptx(self, fixed: bool) -> str:
        return _compiled(self.file, fixed)[0]

    @property
    def kernel(self) -> str:
        return _compiled(self.file, False)[1]

    def launch(self) -> dict:
        return dict(grid=(1, 1, 1), block=_compiled(self.file, False)[2])

    def args(self) -> list:
        ins = [np.arange(self.words, dtype=np.int32) * (k + 3) + 190 * (k + 1)
               for k in range(self.narrays - 1)]
        return ins + [np.zeros(self.words, np.int32)]


MLIR_BUGS = {
    "bar-publish-ir": MlirBug("a named-barrier producer arrives before the shared-memory writes it "
                              "announces (tile IR)", "bar_publish.mlir", 2),
    "ring-release-ir": MlirBug("a ring stage released before its consumer read it (tile IR)",
                               "ring_release.mlir", 3),
    "named-barrier-count-ir": MlirBug("a named-barrier id used by two groups with different "
                                      "thread counts (tile IR)", "named_barrier_count.mlir", 2,
                                      words=96),
}
