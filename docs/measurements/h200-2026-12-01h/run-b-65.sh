#!/usr/bin/env bash
# Device driver, second try: binds with their submounts (the driver libraries the container
# runtime binds into /usr/lib), the packages folder of the worker's RUNPATH, USER and LOGNAME;
# then scripts/gpu-test with its three compile-at-warm-up checks under the view.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-65.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
hdr "where the driver's libraries are"
ldconfig -p | grep -E "libcuda.so.1|libnvidia-ml.so.1" | head -4
grep -E "libcuda|nvidia" /proc/self/mountinfo | awk '{print $5, $4}' | head -8
hdr build
timeout 220 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
PY=/opt/torch/.venv/bin/python3
hdr gpu-test
RATCHET_PYTHON=$PY timeout 330 scripts/gpu-test build 2>&1 | tee "$OUT/gpu-test-65.log" | grep -E "gpu-test|FAIL|Error|error" | head -60
echo "gpu-test exit ${PIPESTATUS[0]}"
hdr done
