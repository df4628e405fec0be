#!/usr/bin/env bash
# Device driver: build, scripts/gpu-test (seven checks), the contract; the source hash checked.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-28.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 300 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
grep -q 25641e539aa14dc5ce5dac8cebaf7873bf7a39f6031ef36217bad66b1b38242b build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "scripts/gpu-test"
RATCHET_PYTHON=$PY RATCHET_DATA=$D timeout 400 scripts/gpu-test build; echo "gpu-test exit $?"
hdr "ratchet contract"
build/ratchet contract --data "$D" --python "$PY" 2>&1 | sed -n '/^lane/,/^observed/p' | head -20
hdr done
