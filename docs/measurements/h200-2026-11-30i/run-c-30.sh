#!/usr/bin/env bash
# Device driver: bench-vs-seed --runs 3 on the build the promotion made (hash checked), no energy.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-30.log") 2>&1
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
grep -q 25641e539aa14dc5ce5dac8cebaf7873bf7a39f6031ef36217bad66b1b38242b build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
rm -rf /tmp/bench
timeout 540 scripts/bench-vs-seed --runs 3 --data "$D" --python "$PY" \
  --seed .gpu-deps/seed/000_37e8900d37b7eec5.txt --out /tmp/bench
echo "bench exit $?"
cp /tmp/bench/*.json /tmp/bench/*.md "$OUT/" 2>/dev/null
date -u +%FT%TZ
