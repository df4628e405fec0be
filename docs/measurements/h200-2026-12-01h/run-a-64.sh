#!/usr/bin/env bash
# Device driver: build the sandbox's deny-by-default view and PID namespace (b3ebb46 and the
# working tree), then scripts/gpu-test with its three compile-at-warm-up checks (Triton,
# torch.compile, load_inline) under the view.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-64.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
hdr build
timeout 220 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
PY=/opt/torch/.venv/bin/python3
hdr gpu-test
RATCHET_PYTHON=$PY timeout 330 scripts/gpu-test build 2>&1 | tee "$OUT/gpu-test-64.log" | grep -E "gpu-test|FAIL|Error|error" | head -60
echo "gpu-test exit ${PIPESTATUS[0]}"
hdr done
