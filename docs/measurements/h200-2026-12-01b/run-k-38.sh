#!/usr/bin/env bash
# Device driver: build (hash checked: worker.py's labels step with bytes operations, commit
# 821965e), scripts/gpu-test (eight checks), then bench-vs-seed --sides python --runs 5
# --worker-dir-b .gpu-deps/worker-old: the new worker.py (python) against the old (python-b),
# interleaved on one board.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-38.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 200 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
grep -q 9e108bc5dc1c92e95d971cd1f330703c584c2a05d7b9c4f2e49b602331c1acfe build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "scripts/gpu-test"
RATCHET_PYTHON=$PY RATCHET_DATA=$D timeout 180 scripts/gpu-test build > /tmp/gpu-test.log 2>&1; echo "gpu-test exit $?"
grep -E "^(ok|FAIL|gpu-test)|passed|failed" /tmp/gpu-test.log | tail -12; cp /tmp/gpu-test.log "$OUT/gpu-test-38.log"
hdr "bench-vs-seed --sides python --runs 5 --worker-dir-b .gpu-deps/worker-old"
rm -rf /tmp/bench
timeout 330 scripts/bench-vs-seed --sides python --runs 5 --worker-dir-b .gpu-deps/worker-old \
  --data "$D" --python "$PY" --out /tmp/bench
echo "bench exit $?"
cp /tmp/bench/*.json /tmp/bench/*.md "$OUT/" 2>/dev/null
hdr done
