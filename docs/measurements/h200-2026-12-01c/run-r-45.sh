#!/usr/bin/env bash
# Device driver: build this tree (hash checked: the reply in one write, the parent's clock stopped
# at its last byte) and the tree of commit 5eb725f (.gpu-deps/src-old, the harness of H200 lane
# 7df8eebfcfa4fe5c), then bench-vs-seed --sides native,python --runs 3 --build-b (that build),
# then scripts/gpu-test on this tree's build.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-45.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 150 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
grep -q 1a22e3290644fec4a20556b96cf3f94c27765d0688ab9e33602d992979936eea build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; exit 1; }
hdr "build of 5eb725f"
ROOT=$(pwd)
(cd .gpu-deps/src-old && RATCHET_GPU_DEPS=$ROOT/.gpu-deps timeout 150 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30)
[ -x .gpu-deps/src-old/build/ratchet-worker ] || exit 1
grep -q 670a751a6623060161b15b78f9063e25a2a711c95b9bf0a5bcf85885a053212c .gpu-deps/src-old/build/generated/contract/source_sha256_generated.h || { echo "old tree: not the expected source hash"; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "bench-vs-seed --sides native,python --runs 3 --build-b"
rm -rf /tmp/bench
timeout 330 scripts/bench-vs-seed --sides native,python --runs 3 --build-b .gpu-deps/src-old/build --data "$D" --python "$PY" --out /tmp/bench
echo "bench exit $?"
cp /tmp/bench/bench-vs-seed.json "$OUT/bench-reply-45.json" 2>/dev/null
hdr gpu-test
RATCHET_PYTHON=$PY timeout 150 scripts/gpu-test build 2>&1 | tee "$OUT/gpu-test-45.log"
echo "gpu-test exit ${PIPESTATUS[0]}"
hdr done
