#!/usr/bin/env bash
# Device driver: a second sample of the RunLoop split's before/after bench (run-a-74.sh was the
# first): the tree before the split (e1135b5, carried as before-tree/) built beside this tree's
# build/ (scorer e8927d4c, whose run loop is the split one), then scripts/bench-vs-seed --runs 1
# with --build-b: the ranked times of both builds and the seed's, interleaved on one board.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-77.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
hdr "build this tree"
timeout 200 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
grep -o "[0-9a-f]\{64\}" build/generated/contract/source_sha256_generated.h | head -1
hdr "build before-tree"
mkdir -p before-tree/baselines && cp -r baselines/submissions before-tree/baselines/
(cd before-tree && RATCHET_GPU_DEPS=$(pwd)/../.gpu-deps timeout 200 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30)
[ -x before-tree/build/ratchet-worker ] && [ -x before-tree/build/ratchet-scorer ] || exit 1
grep -o "[0-9a-f]\{64\}" before-tree/build/generated/contract/source_sha256_generated.h | head -1
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "bench-vs-seed --runs 1 (this tree) --build-b before-tree/build"
rm -rf /tmp/bench
timeout 330 scripts/bench-vs-seed --runs 1 --data "$D" --python "$PY" \
  --build-b before-tree/build --seed .gpu-deps/seed/000_37e8900d37b7eec5.txt --out /tmp/bench 2>&1 | tail -30
echo "bench exit ${PIPESTATUS[0]}"
cp /tmp/bench/bench-vs-seed.json "$OUT/bench-77.json" 2>/dev/null
hdr done
