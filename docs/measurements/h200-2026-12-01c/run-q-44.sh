#!/usr/bin/env bash
# Device driver: bench-vs-seed --sides native,python --runs 3 --build-b (the build of 5eb725f,
# made by run-p-43.sh on this machine): the worker that awaits the device spinning against the one
# that sleeps in torch's synchronization, interleaved, both workers.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-44.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
grep -q 940a9d7088fc4e02f73afe21a073e0d862b4b1afd0cdb87dc23796994ed7abbe build/generated/contract/source_sha256_generated.h || { echo "not the expected source hash"; exit 1; }
grep -q 670a751a6623060161b15b78f9063e25a2a711c95b9bf0a5bcf85885a053212c .gpu-deps/src-old/build/generated/contract/source_sha256_generated.h || { echo "old tree: not the expected source hash"; exit 1; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "bench-vs-seed --sides native,python --runs ${RUNS:-3} --build-b"
rm -rf /tmp/bench
timeout 500 scripts/bench-vs-seed --sides native,python --runs ${RUNS:-3} --build-b .gpu-deps/src-old/build --data "$D" --python "$PY" --out /tmp/bench
echo "bench exit $?"
cp /tmp/bench/*.json "$OUT/" 2>/dev/null
hdr done
