#!/usr/bin/env bash
# Device driver: build (the scorer's hash checked: 84427698, the H200 lane's), then the bundled
# baseline by the direct run and by `ratchet run --executor local` (one GPU) back to back with
# scripts/bench-shards (energy off, to fit one call), and the sharded run audited.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/bench-shards-1.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 250 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] && [ -x build/ratchet-scorer ] || exit 1
grep -q 84427698e11fbc3612822c81aad625e34285d5651b51408f6da4cf9bc6b0c2d2 build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "bench-shards local"
timeout -k 10 480 scripts/bench-shards local --out /tmp/bench -- --data "$D" --python "$PY" --no-energy
for f in /tmp/bench/*.log; do echo "--- $f"; tail -7 "$f"; done
cp /tmp/bench/summary.json "$OUT/bench-shards-1-summary.json"
hdr "audit of the sharded run"
build/ratchet audit /tmp/bench/local-1 --data "$D" > "$OUT/bench-shards-1-audit.log" 2>&1; echo "audit exit $?"
tail -4 "$OUT/bench-shards-1-audit.log"
python3 - <<'PY'
import json
r = json.load(open("/tmp/bench/local-1/run.json"))
for s in r["shards"]:
    a = s["attempts"][-1]
    print(s["record"], s["run"], a["end"], a["device"], a["device_uuid"], round(a["seconds"], 2))
PY
hdr done
