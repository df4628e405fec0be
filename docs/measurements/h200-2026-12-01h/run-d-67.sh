#!/usr/bin/env bash
# Device driver: build (hash checked: harness d50f208a, the view with a tmpfs of its own for each
# worker's folder, escaped and quoted output, a read-only input buffer), the bundled baseline on the H200,
# promotion and audit; then, while time is left, scripts/bench-vs-seed --runs 1 (the ranked
# times under the view against the seed's).
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/ev
exec > >(tee -a "$OUT/gpu-run-67.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 200 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
grep -q d50f208a9e3bb346c2aacbfe8ce7b5d3d3c2a21f347aa36e917b0af75e1cb3bd build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
RUN=/tmp/ev/run-h200-$(date -u +%Y%m%dT%H%M%SZ)
hdr "ratchet run --baseline baselines/records.json"
t=$(date +%s)
timeout -k 10 330 build/ratchet run --baseline baselines/records.json --data "$D" --python "$PY" --out "$RUN" > /tmp/baseline-run.log 2>&1
rc=$?; tail -8 /tmp/baseline-run.log; echo "exit $rc after $(( $(date +%s) - t ))s"
grep -E "telemetry reference|^energy|score |again" /tmp/baseline-run.log | head -20
cp /tmp/baseline-run.log "$OUT/baseline-run-67.log"
if [ "$rc" = 0 ]; then
  hdr "promote"
  build/ratchet promote --baseline baselines/records.json --evidence "$RUN" \
    --record ncm-cpp --record ncm-py --reviewer "ratchet maintainers (H200 run)" \
    --reason "The bundled examples on the NVIDIA H200 lane under the sandbox's view with a bounded tmpfs for each worker's folder, escaped output and a read-only input buffer: the same outcomes as on the CPU lane, and their times on this board, reviewed as the lane's reference."
  echo "promote exit $?"
  cp baselines/records.json "$OUT/records.json"
  build/ratchet audit "$RUN" --data "$D" > "$OUT/audit-67.log" 2>&1; echo "audit exit $?"; tail -2 "$OUT/audit-67.log"
  tar -C /tmp/ev -czf "$OUT/baseline-evidence.tar.gz" "$(basename $RUN)"
fi
hdr "bench-vs-seed --runs 1"
rm -rf /tmp/bench
timeout 150 scripts/bench-vs-seed --runs 1 --data "$D" --python "$PY" \
  --seed .gpu-deps/seed/000_37e8900d37b7eec5.txt --out /tmp/bench 2>&1 | tail -25
echo "bench exit ${PIPESTATUS[0]}"
cp /tmp/bench/bench-vs-seed.json "$OUT/bench-67.json" 2>/dev/null
hdr done
