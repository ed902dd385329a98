"""What a launch on tile-sim may be: the checks the CUDA driver makes against a kernel's
directives, and the caps tile-sim puts on what it emulates, each with its reason.

The driver refuses a launch (``cuLaunchKernelEx``: ``CUDA_ERROR_INVALID_VALUE``) whose block has
more than 1024 threads, differs from the kernel's ``.reqntid`` in a dimension, has more threads
than ``.maxntid`` allows, or whose cluster differs from ``.reqnctapercluster`` or has more CTAs
than ``.maxclusterrank`` (PTX ISA "Performance-Tuning Directives", "Cluster Dimension
Directives").  ``.maxnreg`` bounds the physical registers ptxas allocates per thread; tile-sim's
registers are virtual (each PTX register is its own slot), so it changes nothing here, and neither
does the occupancy hint ``.minnctapersm``.

tile-sim's own caps keep any input within bounded memory and time; each error names the cap.
"""

from __future__ import annotations

import re

from .. import env as _env  # the package's environment variables (imports nothing)
from .errors import EmulationError
from .memory import SMEM_BYTES_PER_BYTE, TMEM_BYTES, TMEM_LANES, TMEM_COLS

MAX_THREADS_PER_CTA = 1024  # every CUDA GPU since sm_20
#: CTAs per cluster: 8 is the portable maximum, 16 the non-portable one (sm_90, sm_100)
MAX_CLUSTER_CTAS = 16
#: shared memory a kernel can address per CTA on sm_90 / sm_100 with the opt-in: 227 KiB (the SM
#: has 228 KiB; the driver reserves 1 KiB of it per CTA for the system)
MAX_SMEM = 232448
#: bytes of kernel parameters (PTX ISA 8.1 and later on sm_70 and later)
MAX_PARAM_BYTES = 32764
MAX_LOCAL_PER_THREAD = 512 << 10  # CUDA's limit on local memory per thread
#: CTAs of one launch: the emulator runs each one, so a bigger grid is a mistake or hours of work
MAX_CTAS = 65536
#: what the emulated memories and threads may take, estimated before the run (see check_memory)
MAX_MEMORY = 1 << 30
#: a thread's bytes besides its registers: the Python object, its happens-before and family state
THREAD_BYTES = 512
#: the default step budget of a launch: a floor, plus this many warp-instructions per warp and
#: static instruction (a kernel whose warps each run every instruction 64 times, loops included);
#: a livelock is then reported after minutes at most, a correct kernel never fails for time
STEP_FLOOR = 2_000_000
STEPS_PER_WARP_INSTRUCTION = 64


def default_max_steps(ctas: int, warps_per_cta: int, instructions: int) -> int:
    """The step budget of a launch of ``ctas`` CTAs of ``warps_per_cta`` warps running a kernel of
    ``instructions`` static instructions (docs/emulator.md §3)."""
    return STEP_FLOOR + STEPS_PER_WARP_INSTRUCTION * ctas * warps_per_cta * instructions


def _env_number(name: str, kind, what: str):
    v = _env.get(name)
    if v is None or v == "":
        return None
    try:
        x = kind(v)
    except ValueError:
        x = -1
    if not x > 0:
        raise EmulationError(f"{name}={v!r} is not a positive {what}")
    return x


def budget(max_steps, max_seconds):
    """(max_steps or None for the launch's default, max_seconds or None for no limit): the
    arguments, else TILE_MLIR_SIM_MAX_STEPS / TILE_MLIR_SIM_MAX_SECONDS."""
    if max_steps is None:
        max_steps = _env_number("TILE_MLIR_SIM_MAX_STEPS", int, "number of warp-instructions")
    if max_seconds is None:
        max_seconds = _env_number("TILE_MLIR_SIM_MAX_SECONDS", float, "number of seconds")
    for v, what in ((max_steps, "max_steps"), (max_seconds, "max_seconds")):
        if v is not None and not (isinstance(v, (int, float)) and not isinstance(v, bool)
                                  and v > 0):
            raise EmulationError(f"{what}={v!r} must be a positive number")
    return max_steps, max_seconds


def dim3(x, name: str) -> tuple[int, int, int]:
    """A grid / block / cluster shape: an int or 1-3 positive ints."""
    try:
        dims = (int(x),) if isinstance(x, int) else tuple(int(v) for v in x)
    except (TypeError, ValueError):
        raise EmulationError(f"bad {name} dimensions {x!r}") from None
    if not 1 <= len(dims) <= 3 or any(v < 1 for v in dims):
        raise EmulationError(f"bad {name} dimensions {x!r}: 1 to 3 positive integers")
    return dims + (1,) * (3 - len(dims))


def cluster_of(fn, cluster) -> tuple[int, int, int]:
    """The launch's cluster shape: ``cluster``, or the kernel's ``.reqnctapercluster`` when None
    (as the driver uses it for a launch that sets none)."""
    if cluster is not None:
        return dim3(cluster, "cluster")
    req = fn.directives.get("reqnctapercluster")
    return dim3(req, "cluster") if req else (1, 1, 1)


def check_launch(fn, grid, block, cluster) -> None:
    """The driver's checks of a launch of ``fn`` with these (3-tuple) shapes, and tile-sim's caps
    on the grid."""
    name = fn.name
    threads = block[0] * block[1] * block[2]
    if threads > MAX_THREADS_PER_CTA:
        raise EmulationError(f"launch of {name}: block {block} has {threads} threads, more than "
                             f"the {MAX_THREADS_PER_CTA} a CTA can have")
    d = fn.directives
    req = d.get("reqntid")
    if req is not None and tuple(req) + (1,) * (3 - len(req)) != block:
        raise EmulationError(f"launch of {name}: block {block} differs from the kernel's "
                             f".reqntid {', '.join(map(str, req))} (the driver refuses the launch "
                             f"with CUDA_ERROR_INVALID_VALUE)")
    mx = d.get("maxntid")
    if mx is not None and threads > _product(mx):
        raise EmulationError(f"launch of {name}: block {block} has {threads} threads, more than "
                             f"the kernel's .maxntid {', '.join(map(str, mx))} allows "
                             f"({_product(mx)}; the driver refuses the launch)")
    rc = d.get("reqnctapercluster")
    if rc is not None and tuple(rc) + (1,) * (3 - len(rc)) != cluster:
        raise EmulationError(f"launch of {name}: cluster {cluster} differs from the kernel's "
                             f".reqnctapercluster {', '.join(map(str, rc))} (the driver refuses "
                             f"the launch)")
    per_cluster = _product(cluster)
    rank = d.get("maxclusterrank")
    if rank is not None and per_cluster > rank[0]:
        raise EmulationError(f"launch of {name}: cluster {cluster} has {per_cluster} CTAs, more "
                             f"than the kernel's .maxclusterrank {rank[0]}")
    if per_cluster > MAX_CLUSTER_CTAS:
        raise EmulationError(f"launch of {name}: cluster {cluster} has {per_cluster} CTAs, more "
                             f"than the {MAX_CLUSTER_CTAS} a cluster can have")
    for g, c in zip(grid, cluster):
        if g % c:
            raise EmulationError(f"launch of {name}: grid {grid} is not a multiple of cluster "
                                 f"{cluster}")
    ctas = _product(grid)
    if ctas > MAX_CTAS:
        raise EmulationError(f"launch of {name}: grid {grid} has {ctas} CTAs, more than "
                             f"tile-sim emulates in one launch ({MAX_CTAS})")


def check_memory(name, *, ctas, cluster_ctas, threads, smem, slots, local, tmem, global_bytes):
    """Estimate what a run keeps in memory and refuse one over MAX_MEMORY: global memory; the
    working state of one cluster at a time (each CTA's shared memory with its per-byte tags,
    tensor memory when the kernel uses it, each thread's registers and local memory); and what the
    result keeps of every CTA (its shared memory, its tensor memory when used)."""
    per_cta = (smem * SMEM_BYTES_PER_BYTE + (TMEM_BYTES if tmem else 0)
               + threads * (THREAD_BYTES + 8 * slots + local))
    kept = ctas * (smem + (TMEM_LANES * TMEM_COLS * 4 if tmem else 0))
    total = global_bytes + cluster_ctas * per_cta + kept
    if total > MAX_MEMORY:
        raise EmulationError(
            f"launch of {name}: emulating it takes about {total >> 20} MiB, more than tile-sim's "
            f"limit of {MAX_MEMORY >> 20} MiB ({ctas} CTAs of {threads} threads, {smem} bytes of "
            f"shared memory, {slots} registers and {local} bytes of local memory per thread, "
            f"{global_bytes} bytes of global memory)")


def _product(dims) -> int:
    p = 1
    for v in dims:
        p *= v
    return p


_SM = re.compile(r"sm_(\d+)([af]?)$")


def device_of(target: str | None, device: str | None) -> str:
    """The GPU a launch emulates (``sm_80``, ``sm_90``, ...): ``device``, else env
    TILE_MLIR_SIM_DEVICE, else the module's ``.target``.  It matters where the ISA leaves the
    arithmetic to the implementation (mma.sync's floating kinds, mma_numerics.MMA_SYNC_ARCH): an
    sm_80 PTX module run on an H100 computes as Hopper does, not as Ampere does.  The driver runs
    PTX on its target and on any later GPU (it JIT-compiles it), arch-specific PTX (``sm_90a``) on
    that GPU only, family-specific PTX (``sm_100f``) on the same major architecture from its
    target on (PTX ISA "PTX Module Directives: .target")."""
    from .mma_numerics import MMA_SYNC_ARCH  # the GPUs tile-sim has an arithmetic model of

    tgt = (target or "sm_100a").split(",")[0].strip()
    if device is None:
        device = _env.get("TILE_MLIR_SIM_DEVICE") or None
    if device is None:
        return tgt
    m, t = _SM.match(str(device).strip()), _SM.match(tgt)
    if m is None or f"sm_{m.group(1)}" not in MMA_SYNC_ARCH:
        raise EmulationError(f"run_ptx: device={device!r}: expected one of "
                             f"{', '.join(sorted(MMA_SYNC_ARCH))} (the GPU tile-sim emulates)")
    if t is None:
        raise EmulationError(f"run_ptx: device={device!r} given for .target {tgt!r}, which names no sm_NN")
    dn, tn, kind = int(m.group(1)), int(t.group(1)), t.group(2)
    where = {"a": "on that GPU only", "f": "on its target and later GPUs of its major architecture"}
    runs = {"a": dn == tn, "f": dn // 10 == tn // 10 and dn >= tn}.get(kind, dn >= tn)
    if not runs:
        raise EmulationError(f"run_ptx: device={device!r} cannot run PTX for .target {tgt} (the "
                             f"driver loads it {where.get(kind, 'on its target or a later GPU')})")
    return f"sm_{dn}"
