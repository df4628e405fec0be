#!/usr/bin/env bash
# Device driver: bench-vs-seed --runs 3 on the build the promotion made (hash checked), no energy.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-27.log") 2>&1
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
grep -q c278e6da793e74d2ac0690e7a3c39a992d5dd34ffd14a6362dbcf2d1ea493b4e build/generated/contract/source_sha256_generated.h || { echo "not main's source hash"; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
rm -rf /tmp/bench
timeout 440 scripts/bench-vs-seed --runs 3 --data "$D" --python "$PY" \
  --seed .gpu-deps/seed/000_37e8900d37b7eec5.txt --out /tmp/bench
echo "bench exit $?"
cp /tmp/bench/*.json $OUT/ 2>/dev/null
date -u +%FT%TZ
