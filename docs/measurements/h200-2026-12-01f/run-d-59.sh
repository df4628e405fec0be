#!/usr/bin/env bash
# Device driver: the build (hash checked: harness 3dccbe9f), then scripts/gpu-test with the board
# names check after review: a quarter of the reviewed time, and a third run whose reviewed
# evidence names another board.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-59.log") 2>&1
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
chmod 700 .gpu-deps/data
timeout 150 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
grep -q 3dccbe9f7b9604d2d99dfcbb3aa38adea28a27ecaa489641ec0bc43a275220d6 build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; exit 1; }
PY=/opt/torch/.venv/bin/python3
t=$(date +%s)
RATCHET_PYTHON=$PY timeout 240 scripts/gpu-test build 2>&1 | tee "$OUT/gpu-test-59.log" | tail -25
echo "gpu-test exit ${PIPESTATUS[0]} after $(( $(date +%s) - t ))s"
date -u +%FT%TZ
