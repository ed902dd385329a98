# tile_mlir: `make demo` and `make test` do all set-up on a fresh machine (a .venv beside this file).
#   make demo       the package and its dependencies only (the bindings, numpy, ml_dtypes, tqdm), then the demo
#   make test       adds the `test` extra (MMA-Sim and torch, dask, hypothesis, lit, the CUDA tools), then the
#                   fast tier: every lit suite beside the pytest tests not marked `slow`, on every core (the
#                   goal: at most 5 min on 2 cores), the property tests with an eighth of their examples
#   make test-all   make test, the slow tier (campaigns, large and long cases, the property tests in full) and
#                   the second provider; CI runs it
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP_DEMO := $(VENV)/.installed-demo
STAMP := $(VENV)/.installed
# torch (for MMA-Sim, the `mma` extra) from PyTorch's CPU wheels: PyPI's default torch build pulls
# several GB of CUDA libraries that tile-sim never uses. The index is used when it answers (an
# offline mirror serves the CPU build under the plain name); `make TORCH_INDEX= ...` skips it.
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
PIP_TORCH = $(if $(TORCH_INDEX),$(shell $(PYTHON) -c "import urllib.request as u; \
	u.urlopen('$(TORCH_INDEX)/', timeout=5)" >/dev/null 2>&1 && echo --extra-index-url $(TORCH_INDEX)))

# The second MLIR bindings provider (docs/providers.md): upstream MLIR 22 from the xtc wheels, in its own
# venv so that .venv stays on the default provider. `make test-upstream` (or
# `TILE_MLIR_BINDINGS=upstream make test`) runs the lit suite and the e2e and provider tests on it.
VENV_UP := .venv-upstream
PY_UP := $(VENV_UP)/bin/python
STAMP_UP := $(VENV_UP)/.installed
UPSTREAM_PYTESTS = test/python/e2e/test_e2e_*.py test/python/providers

# The pytest tiers (the `slow` marker: pyproject.toml, test/python/conftest.py). The fast tier lists the
# tests over FAST_LIMIT seconds that carry no marker, so that a new slow test is seen and marked.
# TEST_JOBS: pytest's worker processes (pytest-xdist; auto: one per core), which steal queued tests from
# each other (--dist worksteal: a long test near the end does not leave the other core idle); `make test
# PYTEST_JOBS=` runs the tests in pytest's own process.
FAST_LIMIT ?= 20
TEST_JOBS ?= auto
PYTEST_JOBS = -n $(TEST_JOBS) --dist worksteal
PYTEST_FAST = -m "not slow" --tier=fast --fast-limit=$(FAST_LIMIT) $(PYTEST_JOBS)

.PHONY: demo test test-slow test-all check-lit check-py venv venv-demo clean bench gpu-artifacts irdl \
	venv-upstream test-upstream

# --no-compile: pip byte-compiles every module it installs (most never imported); Python compiles the
# ones a run imports, once. Measured on a fresh clone here: pip 57 s instead of 95 s, the demo's first
# run 2 s longer (both at load ~13 on 2 cores).
PIP_OPTS = install -q --no-compile
PIP_INSTALL = -m pip $(PIP_OPTS)
# "once" holds only where Python may write its .pyc files. PYTHONDONTWRITEBYTECODE in the environment
# (usual in container images) would have every process here (pytest's workers, the tools the tests start)
# compile numpy, the bindings' dialect modules and the package from source again: `tile-opt demo.mlir
# --tile-to-ptx` 2.5 s of CPU instead of 0.8 s, measured. (lit's RUN lines never see it: lit passes
# on a fixed list of variables.)
unexport PYTHONDONTWRITEBYTECODE

# The venv is made without ensurepip (which installs and byte-compiles its own pip: 9 s of the set-up, 4.6 s
# of CPU, measured at load ~8) when $(PYTHON)'s pip can install into another interpreter (pip >= 22.3:
# --python); that pip then installs pip itself with the package, in one call. Older pips: the plain venv.
HOST_PIP := $(shell $(PYTHON) -c "import sys, pip; \
	sys.exit(tuple(int(x) for x in pip.__version__.split('.')[:2]) < (22, 3))" >/dev/null 2>&1 && echo 1)

$(STAMP_DEMO): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(if $(HOST_PIP),--without-pip) $(VENV)
	$(if $(HOST_PIP),$(PYTHON) -m pip --python $(PY),$(PY) -m pip) $(PIP_OPTS) pip -e .
	touch $(STAMP_DEMO)

venv-demo: $(STAMP_DEMO)

$(STAMP): $(STAMP_DEMO)
	$(PY) $(PIP_INSTALL) $(PIP_TORCH) -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

$(STAMP_UP): pyproject.toml
	test -x $(PY_UP) || $(PYTHON) -m venv $(VENV_UP)
	$(PY_UP) $(PIP_INSTALL) $(PIP_TORCH) -e '.[test,upstream]'
	touch $(STAMP_UP)

venv-upstream: $(STAMP_UP)

test-upstream: $(STAMP_UP)
	TILE_MLIR_BINDINGS=upstream $(VENV_UP)/bin/lit -s test
	TILE_MLIR_BINDINGS=upstream $(PY_UP) -m pytest -q $(PYTEST_JOBS) $(UPSTREAM_PYTESTS)

demo: $(STAMP_DEMO)
	$(PY) examples/demo.py

check-lit: $(STAMP)
	$(VENV)/bin/lit -sv test

check-py: $(STAMP)
	$(PY) -m pytest -q test/python

ifneq ($(filter upstream mlir,$(TILE_MLIR_BINDINGS)),)
test: test-upstream
else
# lit runs beside pytest (each fills the cores the other leaves idle, at its start and its tail); its
# report, kept in test/Output/lit.log, is printed after pytest's; either failing fails `make test`
test: $(STAMP)
	@mkdir -p test/Output
	@$(VENV)/bin/lit -s test > test/Output/lit.log 2>&1 & lit=$$!; \
	$(PY) -m pytest -q $(PYTEST_FAST) test/python; py=$$?; \
	wait $$lit; status=$$?; cat test/Output/lit.log; test $$py -eq 0 -a $$status -eq 0
endif

# the tests `make test` leaves out (marked slow), and the property tests it ran small again in full
test-slow: $(STAMP)
	$(PY) -m pytest -q -m "slow or tiered" $(PYTEST_JOBS) test/python

test-all: test test-slow test-upstream

bench: $(STAMP)
	$(PY) bench/startup.py
	$(PY) bench/compile.py

# lib/TileOps.irdl from OP_SPECS (test/python/dialect/test_irdl_agreement.py fails while it is stale)
irdl: $(STAMP)
	$(VENV)/bin/tile-opt --emit-irdl -o lib/TileOps.irdl

# The committed GPU inputs (the GPU machine has no MLIR bindings); each manifest records its sources'
# sha256, and test/python/project/test_tracked_files.py fails when one has changed since.
gpu-artifacts: $(STAMP)
	$(PY) bench/gpu/make_selftest.py
	$(PY) bench/gpu/make_hopper_artifacts.py
	$(PY) bench/gpu/make_blackwell_demo.py
	$(PY) bench/gpu/make_gemm_artifacts.py

clean:
	rm -rf test/Output .pytest_cache build
