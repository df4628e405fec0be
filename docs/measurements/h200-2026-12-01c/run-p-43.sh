#!/usr/bin/env bash
# Device driver: build this tree (hash checked) and the tree of commit 5eb725f (.gpu-deps/src-old,
# the harness of H200 lane 7df8eebfcfa4fe5c, with the same carried dependencies), then
# scripts/gpu-test on this tree's build (ten checks, two of them new: await spinning py/cpp).
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-43.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 150 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
grep -q 940a9d7088fc4e02f73afe21a073e0d862b4b1afd0cdb87dc23796994ed7abbe build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; exit 1; }
hdr "build of 5eb725f"
ROOT=$(pwd)
(cd .gpu-deps/src-old && RATCHET_GPU_DEPS=$ROOT/.gpu-deps timeout 150 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30)
[ -x .gpu-deps/src-old/build/ratchet-worker ] || exit 1
grep -q 670a751a6623060161b15b78f9063e25a2a711c95b9bf0a5bcf85885a053212c .gpu-deps/src-old/build/generated/contract/source_sha256_generated.h || { echo "old tree: not the expected source hash"; exit 1; }
PY=/opt/torch/.venv/bin/python3
hdr gpu-test
RATCHET_PYTHON=$PY timeout 200 scripts/gpu-test build 2>&1 | tee "$OUT/gpu-test-43.log"
echo "gpu-test exit ${PIPESTATUS[0]}"
hdr done
