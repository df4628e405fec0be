#!/usr/bin/env bash
# Device driver: build, then every check of scripts/gpu-test on scorer e8927d4c (report.json
# through evidence/report_file.h): every scoring goes through the scorer the tool starts.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-76.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 200 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] && [ -x build/ratchet-scorer ] || exit 1
grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h | head -1
PY=/opt/torch/.venv/bin/python3
hdr "cgroups"
grep cgroup /proc/self/mountinfo; cat /sys/fs/cgroup/cgroup.subtree_control
hdr "gpu-test"
RATCHET_PYTHON=$PY timeout 420 scripts/gpu-test build 2>&1 | tee "$OUT/gpu-test-76.log" | grep -E "gpu-test|FAIL|ok " | head -60
echo "gpu-test exit ${PIPESTATUS[0]}"
ls /sys/fs/cgroup/ratchet/ 2>&1 | head
hdr done
