#!/usr/bin/env bash
# Device driver, on branch next/board-in-timing (1676d3a): the build (its hash printed, not
# checked: no lane is promoted from it), then scripts/gpu-test, whose board names check now
# checks the board `ratchet promote` keeps with a GPU time and rewrites it for the third run.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-60.log") 2>&1
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
chmod 700 .gpu-deps/data
timeout 150 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h
PY=/opt/torch/.venv/bin/python3
t=$(date +%s)
RATCHET_PYTHON=$PY timeout 200 scripts/gpu-test build 2>&1 | tee "$OUT/gpu-test-60.log" | tail -25
echo "gpu-test exit ${PIPESTATUS[0]} after $(( $(date +%s) - t ))s"
date -u +%FT%TZ
