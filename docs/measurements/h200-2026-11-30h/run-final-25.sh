#!/usr/bin/env bash
# Device driver: build, GPU checks, contract, bench all sides N=3 (no energy), steps summary; the labels step as one pinned copy.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/ev
exec > >(tee -a "$OUT/gpu-run-25.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader
touch runner/worker/*.cc runner/worker/*.h runner/worker/worker.py runner/protocol/*.cc runner/protocol/*.h
hdr build
timeout 300 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "scripts/gpu-test"
RATCHET_PYTHON=$PY RATCHET_DATA=$D timeout 200 scripts/gpu-test build; echo "gpu-test exit $?"
hdr "scripts/bench-write"
timeout 60 scripts/bench-write 2>&1 | tail -20
hdr "ratchet contract"
build/ratchet contract --data "$D" --python "$PY" 2>&1 | sed -n '/^lane/,/^observed/p' | head -20
hdr "bench-vs-seed --runs 3"
timeout $(( 595 - ($(date +%s) - T0) )) scripts/bench-vs-seed --runs 3 --data "$D" --python "$PY" \
  --seed .gpu-deps/seed/000_37e8900d37b7eec5.txt --out /tmp/bench
echo "bench exit $?"
python3 .gpu-deps/steps.py /tmp/bench | grep -v timed-cal
cp /tmp/bench/*.json $OUT/ 2>/dev/null; ls /tmp/bench; grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h

python3 - <<'PY'
import json, glob
for f in sorted(glob.glob('/tmp/bench/evidence/*/records/*/run-*/calls.json')):
    c = json.load(open(f))
    print(f.split('/')[4], f.split('/')[-2], 'paired_with', [x['phases'].get('paired_with') for x in c],
          'restarted', sum('restarted_because' in x['phases'] for x in c))
PY
hdr done
