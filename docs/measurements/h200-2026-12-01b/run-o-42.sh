#!/usr/bin/env bash
# Device driver: build (hash checked: the harness of H200 lane 7df8eebfcfa4fe5c, commit b0408ec),
# then bench-vs-seed --sides native,python --runs 3 (no seed: the session's device time is short).
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-42.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr build
timeout 100 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
grep -q 670a751a6623060161b15b78f9063e25a2a711c95b9bf0a5bcf85885a053212c build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "bench-vs-seed --sides native,python --runs 3"
rm -rf /tmp/bench
timeout 140 scripts/bench-vs-seed --sides native,python --runs 3 --data "$D" --python "$PY" --out /tmp/bench
echo "bench exit $?"
cp /tmp/bench/*.json "$OUT/" 2>/dev/null
hdr done
