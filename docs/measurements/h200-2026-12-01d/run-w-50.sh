#!/usr/bin/env bash
# Device driver: build (hash checked: commit d75c34a, the harness of H200 lane 51ab2816bd92a513),
# then bench-vs-seed --runs 3 (seed, native, Python; no energy) on a second board.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-50.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 200 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
grep -q 474d85d2deef38e490c307e95215304788f903e5632be699eb36e1c1dfb6d6da build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "bench-vs-seed --runs 3"
rm -rf /tmp/bench
timeout $(( 590 - ($(date +%s) - T0) )) scripts/bench-vs-seed --runs 3 --data "$D" --python "$PY" \
  --seed .gpu-deps/seed/000_37e8900d37b7eec5.txt --out /tmp/bench
echo "bench exit $?"
cp /tmp/bench/bench-vs-seed.json "$OUT/bench-50.json" 2>/dev/null
hdr done
