#!/usr/bin/env bash
# Device driver: build (the scorer's hash checked: SCORER_SHA), the bundled baseline on the H200
# against the baseline the CPU lane moved to that scorer (signed with a key made here), its
# promotion and audit.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
SCORER_SHA=${SCORER_SHA:?}
mkdir -p "$OUT" /tmp/ev
exec > >(tee -a "$OUT/gpu-run-82.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 250 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] && [ -x build/ratchet-scorer ] || exit 1
grep -q "$SCORER_SHA" build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
build/ratchet key new --out /tmp/h200.key
RUN=/tmp/ev/run-h200-$(date -u +%Y%m%dT%H%M%SZ)
hdr "ratchet run --baseline baselines/records.json --sign"
t=$(date +%s)
timeout -k 10 300 build/ratchet run --baseline baselines/records.json --data "$D" --python "$PY" --out "$RUN" --sign /tmp/h200.key > /tmp/baseline-run.log 2>&1
rc=$?; tail -12 /tmp/baseline-run.log; echo "exit $rc after $(( $(date +%s) - t ))s"
cp /tmp/baseline-run.log "$OUT/baseline-run-82.log"
if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then
  hdr "promote"
  build/ratchet promote --baseline baselines/records.json --evidence "$RUN" \
    --record ncm-cpp --record ncm-py --data "$D" --reviewer "ratchet maintainers (H200 run)" \
    --reason "Scorer $SCORER_SHA (signed evidence: SIGNATURE.json over the manifest) on the NVIDIA H200 lane: the same outcomes as on the CPU lane, and their times on this board, reviewed as the lane's reference."
  echo "promote exit $?"
  cp baselines/records.json "$OUT/records.json"
  build/ratchet audit "$RUN" --data "$D" > "$OUT/audit-82.log" 2>&1; echo "audit exit $?"; tail -3 "$OUT/audit-82.log"
  tar -C /tmp/ev -czf "$OUT/baseline-evidence.tar.gz" "$(basename $RUN)"
fi
hdr done
