#!/usr/bin/env bash
# Same-board A/B: the kept call order (A, the tree as checked out: d33dc34) against the deferred
# teardown (B: ab-deferred.patch, made by `git diff d33dc34 4d2023c -- runner > ab-deferred.patch`),
# native rff_ridge.cpp at difficulty 1, interleaved. Run on the device from the repository root.
set -uo pipefail
T0=$(date +%s); OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/ab.log") 2>&1
hdr() { echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
hdr "build A"; timeout 120 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|rror' | head
mkdir -p /tmp/A && cp build/ratchet build/ratchet-worker build/ratchet-worker.native.json /tmp/A/ || exit 1
hdr "build B"; patch -p1 -s < ab-deferred.patch || exit 1
timeout 120 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|rror' | head
mkdir -p /tmp/B && cp build/ratchet build/ratchet-worker build/ratchet-worker.native.json /tmp/B/ || exit 1
export RATCHET_CACHE=/tmp/abcache
for r in 1 2 3 4; do
  for v in A B; do
    [ $(( $(date +%s) - T0 )) -gt 250 ] && { hdr "stopping: time"; break 2; }
    t=$(date +%s%N)
    timeout 60 /tmp/$v/ratchet score baselines/submissions/rff_ridge.cpp --difficulty 1 --no-energy --data "$D" --python "$PY" --out /tmp/ev-$v-$r > /tmp/log-$v-$r 2>&1
    rc=$?; w=$(( ($(date +%s%N) - t) / 1000000 ))
    echo "round $r $v exit $rc wall_ms $w $(grep -o 'score [0-9.]* ms' /tmp/log-$v-$r | tail -1)"
  done
done
$PY - <<'PY'
import json, glob, statistics as st
for f in sorted(glob.glob('/tmp/ev-*/records/*/run-1/calls.json')):
    c = json.load(open(f))
    if len(c) < 15: continue
    s = [x['worker']['clock_ns']['replying'] / 1e6 - x['phases']['steps']['worker_replying'] for x in c]
    cyc = [b - a for a, b in zip(s, s[1:])]
    S = lambda k: [x['phases']['steps'].get(k, float('nan')) for x in c[1:]]
    warm = [w - l for w, l in zip(S('warmed'), S('loaded'))]
    rec = sum(1 for x in c if 'recalibrated' in x['phases'].get('previous', {}))
    print(f.split('/')[2], 'cycle %.0f loaded %.0f warm-up %.0f first-warm %.0f recal %d overhead %.3f' % (
        st.median(cyc), st.median(S('loaded')), st.median(warm),
        c[0]['phases']['steps']['warmed'] - c[0]['phases']['steps']['loaded'], rec,
        st.median(x['overhead_ms'] for x in c)))
PY
tar -C /tmp -czf $OUT/ab-evidence.tar.gz $(cd /tmp && ls -d ev-*/records/*/run-1/calls.json) 2>/dev/null
hdr done
