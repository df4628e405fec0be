#!/usr/bin/env bash
# Experiment: does an empty method that keeps the device busy (a sleep kernel of N us) make the
# calibration's labels and reply steps match the timed call's? Main's tree, then the patch.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-21.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
bench() {  # label, env
  hdr "bench $1"
  env $2 timeout 240 scripts/bench-vs-seed --runs 3 --sides native,python --seed .gpu-deps/seed/000_37e8900d37b7eec5.txt --data "$D" --python "$PY" --out /tmp/bench-$1 > /tmp/bench-$1.out 2>&1
  echo "exit $?"; grep -E "^\| (calibrated|p90|median unexpl|ranked ms|whole-run wall time, s \(median)" /tmp/bench-$1.out
  cp /tmp/bench-$1/bench-vs-seed.json $OUT/bench-$1.json
}
hdr build main
timeout 300 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -10
bench main ""
hdr "apply patch, build"
git apply .gpu-deps/explore/null-busy.patch && echo applied
timeout 300 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -10
bench busy1000 RATCHET_NULL_BUSY_US=1000
bench busy300 RATCHET_NULL_BUSY_US=300
hdr done
