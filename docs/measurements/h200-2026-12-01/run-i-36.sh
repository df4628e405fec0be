#!/usr/bin/env bash
# Device driver: build (hash checked: the harness of H200 lane ea1d910f22709eab), then
# bench-vs-seed --runs 3, no energy: the current harness's figures against the seed's.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-36.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 200 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
grep -q 981aa0259cfb1d6eb3c4d16879b49a56e97087fc6c023a393bf4305ed492d7ad build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "bench-vs-seed --runs 3"
rm -rf /tmp/bench
timeout 500 scripts/bench-vs-seed --runs 3 --data "$D" --python "$PY" \
  --seed .gpu-deps/seed/000_37e8900d37b7eec5.txt --out /tmp/bench
echo "bench exit $?"
cp /tmp/bench/*.json /tmp/bench/*.md "$OUT/" 2>/dev/null
hdr done
