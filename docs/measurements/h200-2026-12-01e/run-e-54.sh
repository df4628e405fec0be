#!/usr/bin/env bash
# Device driver: bench-vs-seed --runs 1 --energy (seed, native, Python) on the build of
# run-z-53.sh (hash checked: commit 359e0e6).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-54.log") 2>&1
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
chmod 700 .gpu-deps/data
grep -q f6fba97cc81e4dd8e63c5f43f00860f24705f050b21f146bf570babcb5b437dc build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
rm -rf /tmp/bench
timeout 580 scripts/bench-vs-seed --runs 1 --energy --data "$D" --python "$PY" \
  --seed .gpu-deps/seed/000_37e8900d37b7eec5.txt --out /tmp/bench
echo "bench exit $?"
cp /tmp/bench/bench-vs-seed.json "$OUT/bench-energy-54.json" 2>/dev/null
cp /tmp/bench/*.md "$OUT/" 2>/dev/null
date -u +%FT%TZ
