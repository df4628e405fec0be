#!/usr/bin/env bash
# Device driver, first call: build (the scorer's hash checked: SCORER_SHA), the bundled baseline
# on the device's board, signed with a key made there, its audit, its evidence returned under
# $OUT for the promotion made on the CPU machine; the page-cache channel probe through the
# corpus's check; the control group's folders as the machine shows them.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
SCORER_SHA=${SCORER_SHA:?}
mkdir -p "$OUT" /tmp/ev
exec > >(tee -a "$OUT/gpu-run-e.log") 2>&1
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
timeout -k 10 300 build/ratchet run --baseline baselines/records.json --runs 1 --data "$D" --python "$PY" --out "$RUN" --sign /tmp/gpu.key > /tmp/baseline-run.log 2>&1
rc=$?; tail -14 /tmp/baseline-run.log; echo "exit $rc after $(( $(date +%s) - t ))s"
cp /tmp/baseline-run.log "$OUT/baseline-run-e.log"
if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then
  build/ratchet audit "$RUN" --data "$D" > "$OUT/audit-e.log" 2>&1; echo "audit exit $?"; tail -3 "$OUT/audit-e.log"
  tar -C /tmp/ev -czf "$OUT/baseline-evidence.tar.gz" "$(basename $RUN)"
  for f in "$RUN"/records/*/run-1/compile.json; do [ -f "$f" ] && echo "$f: $(head -c 300 "$f" | tr -d '\n')"; done
fi
hdr "page-cache channel probe"
RATCHET_PYTHON="$PY" RATCHET_DATA="$D" REDTEAM_KEEP=/tmp/rt timeout 120 python3 tests/redteam/run_corpus.py build tests/redteam/page_cache_channel.py | tail -2
grep -h "REDTEAM-NOTE" /tmp/rt/*/records/*/run-*/logs/*.log | cut -c1-300 | head -20
hdr done
