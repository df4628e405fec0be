#!/usr/bin/env bash
# Device check: build, one native and one Python score, the window's phases.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-check-crew.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
chmod 700 .gpu-deps/data
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
hdr build
timeout 200 scripts/gpu-build build 2>&1 | grep -E 'gpu-build: built|error|Error' | head -30
[ -x build/ratchet-worker ] || exit 1
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
for f in rff_ridge.cpp rff_ridge.py rff_ridge.cpp; do
  hdr "score $f"
  t=$(date +%s.%N)
  timeout 120 build/ratchet score baselines/submissions/$f --difficulty 1 --no-energy --data "$D" --python "$PY" --out /tmp/ev-$f-$RANDOM > /tmp/score.log 2>&1; echo "exit $? in $(echo "$(date +%s.%N) - $t" | bc) s"
  tail -4 /tmp/score.log
done
python3 - <<'PY'
import glob, json, statistics as st
for f in sorted(glob.glob("/tmp/ev-*/**/calls.json", recursive=True)):
    calls = json.load(open(f))
    calls = calls["calls"] if isinstance(calls, dict) else calls
    cal = [c["phases"]["calibration"] for c in calls]
    tim = [c["phases"]["timed"] for c in calls]
    print(f.split("/")[2], "write_threads", {c["phases"].get("write_threads") for c in calls})
    for k in ("write", "to_worker", "inputs", "method", "labels", "to_parent"):
        print(f"  {k:10s} calibration median {st.median(x[k] for x in cal):.3f}  timed median {st.median(x[k] for x in tim):.3f}")
    un = sorted(abs(c["parent_ms"] - c["overhead_ms"] - c["ms"]) for c in calls)
    print(f"  overhead median {st.median(c['overhead_ms'] for c in calls):.3f}, p90 |unexplained| {un[int(0.9*len(un))-1]:.3f}")
PY
tar -C /tmp -czf $OUT/check-crew-calls.tar.gz $(cd /tmp && ls -d ev-*) 2>/dev/null
hdr done
