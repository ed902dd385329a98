# tile_mlir: `make demo` and `make test` do all set-up on a fresh machine (a .venv beside this file).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# torch (for MMA-Sim, the `mma` extra) from PyTorch's CPU wheels: PyPI's default torch build pulls
# several GB of CUDA libraries that tile-sim never uses. The index is used when it answers (an
# offline mirror serves the CPU build under the plain name); `make TORCH_INDEX= ...` skips it.
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
PIP_TORCH = $(if $(TORCH_INDEX),$(shell $(PYTHON) -c "import urllib.request as u; \
	u.urlopen('$(TORCH_INDEX)/', timeout=5)" >/dev/null 2>&1 && echo --extra-index-url $(TORCH_INDEX)))

# The second MLIR bindings provider (README "Providers"): upstream MLIR 22 from the xtc wheels, in its own
# venv so that .venv stays on the default provider. `make test-upstream` (or
# `TILE_MLIR_BINDINGS=upstream make test`) runs the lit suite and the e2e and provider tests on it.
VENV_UP := .venv-upstream
PY_UP := $(VENV_UP)/bin/python
STAMP_UP := $(VENV_UP)/.installed
UPSTREAM_PYTESTS = test/python/test_e2e_*.py test/python/test_providers.py test/python/test_providers_sim.py

.PHONY: demo test check-lit check-py venv clean bench gpu-artifacts irdl venv-upstream test-upstream

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q $(PIP_TORCH) -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

$(STAMP_UP): pyproject.toml
	test -x $(PY_UP) || $(PYTHON) -m venv $(VENV_UP)
	$(PY_UP) -m pip install -q --upgrade pip
	$(PY_UP) -m pip install -q $(PIP_TORCH) -e '.[test,upstream]'
	touch $(STAMP_UP)

venv-upstream: $(STAMP_UP)

test-upstream: $(STAMP_UP)
	TILE_MLIR_BINDINGS=upstream $(VENV_UP)/bin/lit -s test
	TILE_MLIR_BINDINGS=upstream $(PY_UP) -m pytest $(UPSTREAM_PYTESTS)

demo: $(STAMP)
	$(PY) examples/demo.py

check-lit: $(STAMP)
	$(VENV)/bin/lit -sv test

check-py: $(STAMP)
	$(PY) -m pytest -q test/python

ifneq ($(filter upstream mlir,$(TILE_MLIR_BINDINGS)),)
test: test-upstream
else
test: $(STAMP)
	$(VENV)/bin/lit -s test
	$(PY) -m pytest -q test/python
endif

bench: $(STAMP)
	$(PY) bench/startup.py
	$(PY) bench/compile.py

# lib/TileOps.irdl from OP_SPECS (test/python/test_irdl_agreement.py fails while it is stale)
irdl: $(STAMP)
	$(VENV)/bin/tile-opt --emit-irdl -o lib/TileOps.irdl

# The committed GPU inputs (the GPU machine has no MLIR bindings); each manifest records its sources'
# sha256, and test/python/test_tracked_files.py fails when one has changed since.
gpu-artifacts: $(STAMP)
	$(PY) bench/gpu/make_selftest.py
	$(PY) bench/gpu/make_hopper_artifacts.py
	$(PY) bench/gpu/make_blackwell_demo.py
	$(PY) bench/gpu/make_gemm_artifacts.py

clean:
	rm -rf test/Output .pytest_cache build
