#!/usr/bin/env bash
# Device driver: build (hash checked: harness c2f3bd14, the sandbox's view), scripts/gpu-test's
# 'workers ahead' check with its new expectation, the bundled baseline on the H200, promotion.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/ev
exec > >(tee -a "$OUT/gpu-run-66.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 200 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
grep -q c2f3bd14adb1bdefbc0efad25fd9d7def3f3873ff64e3a67274f5fe29618bf29 build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "gpu-test: workers ahead"
RATCHET_GPU_TEST_ONLY='workers ahead' RATCHET_PYTHON=$PY timeout 90 scripts/gpu-test build 2>&1 | tee "$OUT/gpu-test-66.log" | tail -5
RUN=/tmp/ev/run-h200-$(date -u +%Y%m%dT%H%M%SZ)
hdr "ratchet run --baseline baselines/records.json"
t=$(date +%s)
timeout -k 10 330 build/ratchet run --baseline baselines/records.json --data "$D" --python "$PY" --out "$RUN" > /tmp/baseline-run.log 2>&1
rc=$?; tail -8 /tmp/baseline-run.log; echo "exit $rc after $(( $(date +%s) - t ))s"
grep -E "telemetry reference|^energy|score |again" /tmp/baseline-run.log | head -20
cp /tmp/baseline-run.log "$OUT/baseline-run-66.log"
if [ "$rc" = 0 ]; then
  hdr "promote"
  build/ratchet promote --baseline baselines/records.json --evidence "$RUN" \
    --record ncm-cpp --record ncm-py --reviewer "ratchet maintainers (H200 run)" \
    --reason "The bundled examples on the NVIDIA H200 lane under the sandbox's deny-by-default view and PID namespace (b3ebb46, 5386085): the same outcomes as on the CPU lane, and their times on this board, reviewed as the lane's reference."
  echo "promote exit $?"
  cp baselines/records.json "$OUT/records.json"
  build/ratchet audit "$RUN" --data "$D" > "$OUT/audit-66.log" 2>&1; echo "audit exit $?"; tail -3 "$OUT/audit-66.log"
  tar -C /tmp/ev -czf "$OUT/baseline-evidence.tar.gz" "$(basename $RUN)"
fi
hdr done
