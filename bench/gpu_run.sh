#!/usr/bin/env bash
# Run ON the GPU machine (python3 with numpy + cuda-bindings; cupy/torch optional; no MLIR needed):
#   bench/gpu_run.sh [ARTIFACT_DIR ...]  (default test/fixtures/gpu and bench/gpu/artifacts)
# 1. runs every shipped artifact in the ARTIFACT_DIRs through tile_mlir.runtime and compares its
#    outputs with the expected .npy/.npz files beside it ("match"/"mismatch" per kernel);
# 2. measures launch overhead (bench/launch.py).
# Exit status: non-zero if any kernel mismatched or failed.
set -u
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
export PYTHONPATH="python${PYTHONPATH:+:$PYTHONPATH}"
echo "== device"
"$PY" - <<'PYEOF'
from tile_mlir.runtime import cuda_available, current_device
ok, why = cuda_available()
if ok:
    d = current_device()
    print(f"{d.name}: compute capability {d.cc[0]}.{d.cc[1]}, {d.sm_count} SMs, "
          f"max dynamic shared memory {d.max_smem_optin} bytes/block")
else:
    print(why)
PYEOF
echo "== artifacts"
"$PY" bench/gpu/run_artifacts.py "$@"
status=$?
echo "== launch overhead"
"$PY" bench/launch.py || status=1
exit $status
