#!/usr/bin/env bash
# Device driver: build, then ratchet's two sides of bench-vs-seed under rule files that differ
# only in timing.calibration_products (0, 3, 12): does calibrating after device work take the
# offset of the steps after a method out of the unexplained time?
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-34.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 200 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
for k in 12 0 3; do
  sides=native,python; [ "$k" = 3 ] && sides=native
  hdr "bench busy$k ($sides)"
  timeout 170 scripts/bench-vs-seed --runs 3 --sides $sides --data "$D" --python "$PY" \
    --rules .gpu-deps/rules/busy$k.json --out /tmp/bench-$k > /tmp/bench-$k.log 2>&1
  echo "bench exit $?"
  tail -40 /tmp/bench-$k/bench.log
  mkdir -p "$OUT/busy$k"; cp /tmp/bench-$k/*.json /tmp/bench-$k/*.md /tmp/bench-$k/bench.log "$OUT/busy$k/" 2>/dev/null
done
hdr done
