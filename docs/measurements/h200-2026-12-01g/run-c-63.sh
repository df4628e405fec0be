#!/usr/bin/env bash
# Device driver: the build (hash checked: harness 88aaebea, the lanes promoted at 54344fb),
# then bench-vs-seed --runs 3 (seed, native, Python; no energy): the three runs the CV target asks
# for, on this harness.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-63.log") 2>&1
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
chmod 700 .gpu-deps/data
timeout 150 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
grep -q 88aaebeab1916094056b1af96e5526b6aefb18a6d4b181e8d2e58a8c432b14e6 build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
rm -rf /tmp/bench
timeout 500 scripts/bench-vs-seed --runs 3 --data "$D" --python "$PY" \
  --seed .gpu-deps/seed/000_37e8900d37b7eec5.txt --out /tmp/bench
echo "bench exit $?"
cp /tmp/bench/bench-vs-seed.json "$OUT/bench-63.json" 2>/dev/null
date -u +%FT%TZ
