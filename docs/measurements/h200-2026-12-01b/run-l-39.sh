#!/usr/bin/env bash
# Device driver: build (hash checked: commit 19d6d8d, workers spin for the go after a gc with
# spin_ms, and worker.py's labels step with bytes operations), then bench-vs-seed --runs 3 with
# the seed, the native worker, the Python worker (python) and the Python worker of commit 821965e
# (python-b: the same labels step, no spin; it ignores spin_ms), interleaved on one board.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-39.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 200 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
grep -q 1621dce98b83389ad1acfc59f2eb3f607fdcb93201da9ed3748ff2c3002bfdb3 build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "bench-vs-seed --runs 3 --worker-dir-b .gpu-deps/worker-b"
rm -rf /tmp/bench
timeout 520 scripts/bench-vs-seed --runs 3 --worker-dir-b .gpu-deps/worker-b \
  --data "$D" --python "$PY" --seed .gpu-deps/seed/000_37e8900d37b7eec5.txt --out /tmp/bench
echo "bench exit $?"
cp /tmp/bench/*.json /tmp/bench/*.md "$OUT/" 2>/dev/null
hdr done
