#!/bin/bash
# On a machine with a GPU and no compiler: the CUDA suites that `make
# gpu-bundle` built here ($BUNDLE, build/gpu: shared libraries and stripped
# programs, small enough to carry), run on cuda:0 as make test runs them,
# the log also written to $OUT/gpu.log. The last line is the totals.
set -u
cd "$(dirname "$0")/.."
BUNDLE=${BUNDLE:-build/gpu}
OUT=${OUT:-$BUNDLE}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/gpu.log" 2>&1
set -o pipefail
CUDA=1 GPU_ONLY=1 BUILD="$BUNDLE" DEVICE_SUITES="$(cat "$BUNDLE/suites")" tests/run.sh 2>&1 | tee -a "$OUT/gpu.log"
