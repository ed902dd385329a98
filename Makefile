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

.PHONY: demo test check-lit check-py venv clean bench gpu-artifacts irdl

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q $(PIP_TORCH) -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(PY) examples/demo.py

check-lit: $(STAMP)
	$(VENV)/bin/lit -sv test

check-py: $(STAMP)
	$(PY) -m pytest -q test/python

test: $(STAMP)
	$(VENV)/bin/lit -s test
	$(PY) -m pytest -q test/python

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
