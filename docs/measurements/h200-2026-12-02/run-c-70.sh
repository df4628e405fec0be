#!/usr/bin/env bash
# Device driver: scripts/bench-vs-seed --runs 1 again, on the same board and build right after
# run-b-69.sh (whose bench had a 150 s limit and timed out in the seed's round): bench-70.json.
ls build/ratchet >/dev/null 2>&1 || (timeout 200 scripts/gpu-build build 2>&1 | tail -2)
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
nvidia-smi --query-gpu=uuid --format=csv,noheader
rm -rf /tmp/bench
timeout 420 scripts/bench-vs-seed --runs 1 --data "$D" --python "$PY" \
  --seed .gpu-deps/seed/000_37e8900d37b7eec5.txt --out /tmp/bench 2>&1 | tail -22
echo "bench exit ${PIPESTATUS[0]}"
cp /tmp/bench/bench-vs-seed.json "$OUT/bench-70.json" 2>/dev/null
