#!/usr/bin/env bash
# Device driver: a fresh build (hash checked: the harness of lanes 1847832f527cf71f and
# 552ead22b5b8ac88), then bench-vs-seed --runs 2 (seed, native, Python; no energy) with the
# script of commit 22acbaa (the MNIST calls' sd per run).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-55.log") 2>&1
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
chmod 700 .gpu-deps/data
timeout 150 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
grep -q f6fba97cc81e4dd8e63c5f43f00860f24705f050b21f146bf570babcb5b437dc build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
rm -rf /tmp/bench
timeout 330 scripts/bench-vs-seed --runs 2 --data "$D" --python "$PY" \
  --seed .gpu-deps/seed/000_37e8900d37b7eec5.txt --out /tmp/bench
echo "bench exit $?"
cp /tmp/bench/bench-vs-seed.json "$OUT/bench-55.json" 2>/dev/null
date -u +%FT%TZ
