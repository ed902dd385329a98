"""What every test shares.

- tile-sim runs strict unless a test asks otherwise: our own kernels must keep every ISA rule (run_ptx's
  default is lenient, for foreign PTX; sim/findings.py).
- This directory is on sys.path: it holds the helper modules (kernel builders, fuzz families, the import
  graph) that tests in several rooms and bench/ scripts import by name; the tests themselves live in
  rooms named after the package's (dialect/, layout/, lowering/, runtime/, sim/, tools/, ...).
- The tiers: a campaign, a large case or a long end-to-end run carries the `slow` marker (registered in
  pyproject.toml; per test, per parameter or per module: `pytestmark = pytest.mark.slow`); `make test`
  runs `-m "not slow"`, `make test-all` everything. With `--fast-limit=SECONDS` (what `make test`
  passes) the summary names the unmarked tests that took longer, so that a new slow test is seen and
  marked; it fails nothing (a test's time depends on the machine's load).
- Property tests carry the `tiered` marker and size themselves with tiers.examples(n): `--tier=fast`
  (what `make test` passes) runs an eighth of their examples, and `make test-slow` runs them again in
  full (`-m "slow or tiered"`).
"""
import os
import sys

os.environ.setdefault("TILE_MLIR_SIM_STRICT", "1")
if os.environ.get("PYTEST_XDIST_WORKER"):  # pytest-xdist's workers already fill the cores: tile-sim's own
    os.environ.setdefault("TILE_MLIR_SIM_WORKERS", "1")  # pool beside them only adds processes and decodes
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def pytest_addoption(parser):
    parser.addoption("--fast-limit", type=float, default=None, metavar="SECONDS",
                     help="name, in the summary, the tests not marked slow whose run took longer")
    parser.addoption("--tier", choices=("fast", "all"), default="all",
                     help="fast: the `tiered` property tests run an eighth of their examples (make test)")


class _OverLimit:
    """The reports of unmarked tests whose setup, call or teardown took longer than the limit."""

    def __init__(self, limit: float):
        self.limit, self.found = limit, []

    def pytest_runtest_logreport(self, report):
        if report.duration > self.limit and "slow" not in report.keywords:
            self.found.append((report.duration, report.nodeid, report.when))

    def pytest_terminal_summary(self, terminalreporter):
        if not self.found:
            return
        terminalreporter.section(f"tests over {self.limit:g} s without the slow marker")
        for duration, nodeid, when in sorted(self.found, reverse=True):
            terminalreporter.write_line(f"{duration:8.1f} s  {nodeid} ({when})")
        terminalreporter.write_line("mark them slow (@pytest.mark.slow, or the module: pytestmark = "
                                    "pytest.mark.slow) if they are slow on a quiet machine too")


def pytest_configure(config):
    import tiers  # (this directory's helper module; set before any test module reads it)

    tiers.FAST = config.getoption("--tier") == "fast"
    limit = config.getoption("--fast-limit")
    if limit is not None:
        config.pluginmanager.register(_OverLimit(limit), "tile-fast-limit")
