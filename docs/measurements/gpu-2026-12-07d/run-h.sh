#!/usr/bin/env bash
# Device driver: build (the scorer's hash checked: SCORER_SHA), the bundled baseline on the
# device's board, signed with a key made there; its audit; the evidence returned under $OUT for
# the promotion, which is made on the CPU machine from the returned evidence. Then the page-cache
# channel probe through the corpus's check, with its notes, and the control group's folders as
# the machine shows them (cgroup v2 there: a worker's group with `start` and `method` below it).
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
SCORER_SHA=${SCORER_SHA:?}
mkdir -p "$OUT" /tmp/ev
exec > >(tee -a "$OUT/gpu-run-h.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
uname -r; grep cgroup /proc/self/mountinfo | awk '{print $5, $9}'
hdr build
timeout 300 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] && [ -x build/ratchet-scorer ] || exit 1
grep -q "$SCORER_SHA" build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
build/ratchet key new --out /tmp/gpu.key
cp /tmp/gpu.key.pub "$OUT/gpu.key.pub" 2>/dev/null || true
RUN=/tmp/ev/run-gpu-$(date -u +%Y%m%dT%H%M%SZ)
hdr "ratchet run --baseline baselines/records.json --sign"
t=$(date +%s)
timeout -k 10 400 build/ratchet run --baseline baselines/records.json --data "$D" --python "$PY" --out "$RUN" --sign /tmp/gpu.key > /tmp/baseline-run.log 2>&1
rc=$?; tail -14 /tmp/baseline-run.log; echo "exit $rc after $(( $(date +%s) - t ))s"
cp /tmp/baseline-run.log "$OUT/baseline-run-h.log"
if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then
  build/ratchet audit "$RUN" --data "$D" > "$OUT/audit-h.log" 2>&1; echo "audit exit $?"; tail -3 "$OUT/audit-h.log"
  tar -C /tmp/ev -czf "$OUT/baseline-evidence.tar.gz" "$(basename $RUN)"
fi
hdr "page-cache channel probe"
RATCHET_PYTHON="$PY" RATCHET_DATA="$D" REDTEAM_KEEP=/tmp/rt timeout 150 python3 tests/redteam/run_corpus.py build tests/redteam/page_cache_channel.py | tail -2
grep -h "REDTEAM-NOTE" /tmp/rt/*/records/*/run-*/logs/*.log | cut -c1-400
hdr done
