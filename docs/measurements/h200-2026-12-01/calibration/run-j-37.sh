#!/usr/bin/env bash
# Device driver: the experimental build (calibration/experiment.patch applied), then
# bench-vs-seed --sides native --runs 4 --rules busy0 --rules-b busy3: no products against 3
# products in each calibration call, interleaved run for run on one board.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-37.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 120 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "bench busy0 against busy3, native, interleaved"
timeout 110 scripts/bench-vs-seed --runs 4 --sides native --data "$D" --python "$PY" \
  --rules .gpu-deps/rules/busy0.json --rules-b .gpu-deps/rules/busy3.json --out /tmp/bench
echo "bench exit $?"
cp /tmp/bench/*.json /tmp/bench/bench.log "$OUT/" 2>/dev/null
hdr done
