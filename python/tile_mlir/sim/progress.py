"""The progress bar of a long tile-sim run: CTAs done of the launch's total and warp-instructions
per second, on stderr (tqdm), shown once a run has taken 2 s; off when stderr is not a terminal,
with ``progress=False`` or TILE_MLIR_SIM_PROGRESS=0, on when ``progress=True``."""

from __future__ import annotations

import contextlib
import sys
import time

from .. import env as _env

#: seconds a run takes before its bar appears
DELAY = 2.0


def enabled(progress) -> bool:
    if progress is not None:
        return bool(progress)
    if (_env.get("TILE_MLIR_SIM_PROGRESS") or "") == "0":
        return False
    return sys.stderr is not None and sys.stderr.isatty()


class Bar:
    """Counts clusters as CTAs; the rate is warp-instructions per second of the whole run."""

    def __init__(self, total_ctas: int, cluster_ctas: int, force: bool):
        from tqdm import tqdm
        self.per, self.force = cluster_ctas, force
        self.t0 = time.monotonic()
        self.steps = 0
        self.bar = tqdm(total=total_ctas, unit="CTA", desc="tile-sim", file=sys.stderr,
                        delay=0 if force else DELAY, leave=False, dynamic_ncols=True)

    def note(self, text: str) -> None:
        """How the launch runs (serial and why, or the pool), in the bar's description."""
        shown = self.force or time.monotonic() - self.t0 >= DELAY  # else drawn when it appears
        self.bar.set_description_str(f"tile-sim ({text})", refresh=shown)

    def cluster_done(self, steps: int) -> None:  # in this process: steps is the running total
        self._update(1, steps - self.steps)

    def clusters_done(self, n: int, steps: int) -> None:  # from a worker: its own count
        self._update(n, steps)

    def _update(self, clusters: int, steps: int) -> None:
        self.steps += steps
        dt = max(time.monotonic() - self.t0, 1e-9)
        self.bar.set_postfix_str(f"{self.steps / dt:,.0f} instr/s", refresh=False)
        self.bar.update(clusters * self.per)

    def close(self) -> None:
        self.bar.close()


@contextlib.contextmanager
def bar_for(m, progress):
    """A Bar for machine ``m``'s launch, or None when progress is off (or tqdm is missing)."""
    bar = None
    if enabled(progress):
        cx, cy, cz = m.cluster_dims
        gx, gy, gz = m.grid
        try:
            bar = Bar(gx * gy * gz, cx * cy * cz, force=progress is True)
        except ImportError:
            bar = None
    try:
        yield bar
    finally:
        if bar is not None:
            bar.close()
