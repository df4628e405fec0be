#!/usr/bin/env bash
# Device driver: build (hash checked: main at 91c8a94, where branch next/board-in-timing was merged: ratchet promote
# keeps the board with a GPU time), scripts/gpu-test, the bundled baseline on the H200, promotion.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/ev
exec > >(tee -a "$OUT/gpu-run-61.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 200 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
grep -q 00e490a8b2e988534031e35544d1599d57aea53c0bb094e57a7793ab73a427de build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr gpu-test
RATCHET_PYTHON=$PY timeout 220 scripts/gpu-test build 2>&1 | tee "$OUT/gpu-test-61.log" | tail -15
echo "gpu-test exit ${PIPESTATUS[0]}"
RUN=/tmp/ev/run-h200-$(date -u +%Y%m%dT%H%M%SZ)
hdr "ratchet run --baseline baselines/records.json"
t=$(date +%s)
timeout -k 10 330 build/ratchet run --baseline baselines/records.json --data "$D" --python "$PY" --out "$RUN" > /tmp/baseline-run.log 2>&1
rc=$?; tail -8 /tmp/baseline-run.log; echo "exit $rc after $(( $(date +%s) - t ))s"
grep -E "telemetry reference|^energy|score |again" /tmp/baseline-run.log | head -20
cp /tmp/baseline-run.log "$OUT/baseline-run-61.log"
if [ "$rc" = 0 ]; then
  hdr "promote"
  build/ratchet promote --baseline baselines/records.json --evidence "$RUN" \
    --record ncm-cpp --record ncm-py --reviewer "ratchet maintainers (H200 run)" \
    --reason "The bundled examples on the NVIDIA H200 lane after ratchet promote came to keep the board a GPU time was scored on with the time (d1b95be..91c8a94): the same outcomes as on the CPU lane, and their times on this board, reviewed as the lane's reference."
  echo "promote exit $?"
  cp baselines/records.json "$OUT/records.json"
  tar -C /tmp/ev -czf "$OUT/baseline-evidence.tar.gz" "$(basename $RUN)"
fi
hdr done
