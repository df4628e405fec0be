#!/usr/bin/env bash
# Device driver: build (hash checked: harness f7569527, the control groups and the rule set
# mnist-a100/1.5.0), the bundled baseline on the H200, promotion and audit; then
# scripts/bench-vs-seed --runs 1 (the ranked times under the groups against the seed's).
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/ev
exec > >(tee -a "$OUT/gpu-run-69.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 200 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
grep -q f7569527a7b344ec087e12591a93be0ee5b8d2fc51d9748f7e62232616301fbd build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
RUN=/tmp/ev/run-h200-$(date -u +%Y%m%dT%H%M%SZ)
hdr "ratchet run --baseline baselines/records.json"
t=$(date +%s)
timeout -k 10 330 build/ratchet run --baseline baselines/records.json --data "$D" --python "$PY" --out "$RUN" > /tmp/baseline-run.log 2>&1
rc=$?; tail -8 /tmp/baseline-run.log; echo "exit $rc after $(( $(date +%s) - t ))s"
grep -E "telemetry reference|^energy|score |again" /tmp/baseline-run.log | head -20
cp /tmp/baseline-run.log "$OUT/baseline-run-69.log"
if [ "$rc" = 0 ]; then
  hdr "promote"
  build/ratchet promote --baseline baselines/records.json --evidence "$RUN" \
    --record ncm-cpp --record ncm-py --reviewer "ratchet maintainers (H200 run)" \
    --reason "The bundled examples on the NVIDIA H200 lane under the rule set mnist-a100/1.5.0 with every sandboxed process in a control group of its own: the same outcomes as on the CPU lane, and their times on this board, reviewed as the lane's reference."
  echo "promote exit $?"
  cp baselines/records.json "$OUT/records.json"
  build/ratchet audit "$RUN" --data "$D" > "$OUT/audit-69.log" 2>&1; echo "audit exit $?"; tail -2 "$OUT/audit-69.log"
  tar -C /tmp/ev -czf "$OUT/baseline-evidence.tar.gz" "$(basename $RUN)"
  "$PY" - "$RUN" <<'PY'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/records/*/run-*/calls.json")):
    peaks = [c["phases"].get("group", {}).get("memory_peak_bytes", 0) for c in json.load(open(f))]
    print(f"{f.split('/records/')[1]}: peak memory of a worker {max(peaks) / 2**20:.0f} MiB")
PY
fi
hdr "bench-vs-seed --runs 1"
rm -rf /tmp/bench
timeout 150 scripts/bench-vs-seed --runs 1 --data "$D" --python "$PY" \
  --seed .gpu-deps/seed/000_37e8900d37b7eec5.txt --out /tmp/bench 2>&1 | tail -25
echo "bench exit ${PIPESTATUS[0]}"
cp /tmp/bench/bench-vs-seed.json "$OUT/bench-69.json" 2>/dev/null
hdr done
