#!/usr/bin/env bash
# Device driver: the tree of 8f8bbfd (the scoring run split into RunLoop) and the tree before it
# (e1135b5), each carried as a folder of its own (after-tree/, before-tree/), built, then
# scripts/bench-vs-seed --runs 1 with --build-b: the ranked times of both builds and the seed's,
# interleaved on one board.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-74.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
for tree in after-tree before-tree; do
  hdr "build $tree"
  mkdir -p $tree/baselines && cp -r baselines/submissions $tree/baselines/
  (cd $tree && RATCHET_GPU_DEPS=$(pwd)/../.gpu-deps timeout 200 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30)
  [ -x $tree/build/ratchet-worker ] && [ -x $tree/build/ratchet-scorer ] || exit 1
  grep -o "[0-9a-f]\{64\}" $tree/build/generated/contract/source_sha256_generated.h | head -1
done
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "bench-vs-seed --runs 1 (after-tree) --build-b before-tree/build"
rm -rf /tmp/bench
(cd after-tree && timeout 330 scripts/bench-vs-seed --runs 1 --data "$D" --python "$PY" \
  --build-b ../before-tree/build --seed ../.gpu-deps/seed/000_37e8900d37b7eec5.txt --out /tmp/bench 2>&1 | tail -30)
echo "bench exit $?"
cp /tmp/bench/bench-vs-seed.json "$OUT/bench-74.json" 2>/dev/null
hdr done
