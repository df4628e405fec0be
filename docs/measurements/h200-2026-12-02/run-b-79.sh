#!/usr/bin/env bash
# Device driver: build (the scorer's hash checked: 84427698, sandbox slots and a given
# session seed), the bundled baseline on the H200 against the baseline the CPU lane
# moved to that scorer, its promotion and audit.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/ev
exec > >(tee -a "$OUT/gpu-run-79.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 250 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] && [ -x build/ratchet-scorer ] || exit 1
grep -q 84427698e11fbc3612822c81aad625e34285d5651b51408f6da4cf9bc6b0c2d2 build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
RUN=/tmp/ev/run-h200-$(date -u +%Y%m%dT%H%M%SZ)
hdr "ratchet run --baseline baselines/records.json"
t=$(date +%s)
timeout -k 10 300 build/ratchet run --baseline baselines/records.json --data "$D" --python "$PY" --out "$RUN" > /tmp/baseline-run.log 2>&1
rc=$?; tail -8 /tmp/baseline-run.log; echo "exit $rc after $(( $(date +%s) - t ))s"
grep -E "telemetry reference|^energy|score |again" /tmp/baseline-run.log | head -20
cp /tmp/baseline-run.log "$OUT/baseline-run-79.log"
if [ "$rc" = 0 ]; then
  hdr "promote"
  build/ratchet promote --baseline baselines/records.json --evidence "$RUN" \
    --record ncm-cpp --record ncm-py --data "$D" --reviewer "ratchet maintainers (H200 run)" \
    --reason "Scorer 84427698 (sandbox slots: a scorer holds eight worker uids and their lock alone; a session seed the tool may give) on the NVIDIA H200 lane: the same outcomes as on the CPU lane, and their times on this board, reviewed as the lane's reference."
  echo "promote exit $?"
  cp baselines/records.json "$OUT/records.json"
  build/ratchet audit "$RUN" --data "$D" > "$OUT/audit-79.log" 2>&1; echo "audit exit $?"; tail -2 "$OUT/audit-79.log"
  tar -C /tmp/ev -czf "$OUT/baseline-evidence.tar.gz" "$(basename $RUN)"
fi
hdr done
