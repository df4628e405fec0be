#!/usr/bin/env bash
# Device driver, second call on the machine run-e.sh built on: the three published methods
# (carried in .gpu-deps/methods/, never in the checkout) scored once each by `ratchet score`
# with the compile step (the default on a GPU) and without it (RATCHET_COMPILE_STEP=never),
# then the seed scorer on kernel_pcg.py, each timed whole; summarize.py prints the figures.
set -uo pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/ev
exec > >(tee -a "$OUT/gpu-methods-e.log") 2>&1
hdr() { echo; echo "=== [$(( $(date +%s) - T0 ))s] $*"; }
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data; M=.gpu-deps/methods
S=docs/measurements/gpu-2026-12-07e/summarize.py
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
# DEADLINE (epoch seconds, optional): a score that could not end before it is not started.
score() {  # label limit_s file:function band [env...]
  local label=$1 limit=$2 target=$3 band=$4; shift 4
  local ev=/tmp/ev/$label t0 t1
  if [ -n "${DEADLINE:-}" ] && [ $(( $(date +%s) + limit )) -gt "$DEADLINE" ]; then
    hdr "$label: skipped (the call's deadline)"; return
  fi
  hdr "$label"
  t0=$(date +%s.%N)
  env "$@" timeout -k 5 "$limit" build/ratchet score "$target" --band "$band" --no-energy \
    --data "$D" --python "$PY" --out "$ev" > "/tmp/$label.log" 2>&1
  echo "exit $?"; t1=$(date +%s.%N)
  tail -3 "/tmp/$label.log"
  python3 "$S" "$label" "$(python3 -c "print($t1 - $t0)")" "$ev"
  cp "/tmp/$label.log" "$OUT/$label.log"
  cp "$ev"/records/*/run-1/compile.json "$OUT/$label.compile.json" 2>/dev/null
  cp "$ev"/records/*/run-1/calls.json "$OUT/$label.calls.json" 2>/dev/null
}
score kpcg-step 90 $M/kernel_pcg.py:classify 340
score kpcg-nostep 90 $M/kernel_pcg.py:classify 340 RATCHET_COMPILE_STEP=never
score fastmlp-step 90 $M/fast_mlp.py:fast_mlp 540
score fastmlp-nostep 90 $M/fast_mlp.py:fast_mlp 540 RATCHET_COMPILE_STEP=never
score n3-step 200 $M/mlp_neighbor3_register_d1.py:classify 540
hdr "seed scorer: kernel_pcg.py"
if [ -n "${DEADLINE:-}" ] && [ $(( $(date +%s) + 170 )) -gt "$DEADLINE" ]; then
  echo "skipped (the call's deadline)"; exit 0
fi
timeout -k 5 170 scripts/bench-vs-seed --sides seed --runs 1 --py $M/kernel_pcg.py --function classify \
  --band 340 --data "$D" --python "$PY" --seed .gpu-deps/seed/000_37e8900d37b7eec5.txt \
  --out /tmp/bench-kpcg > /tmp/bench-kpcg.log 2>&1; echo "exit $?"
grep -E "whole-run|outcome|ranked ms \(median" /tmp/bench-kpcg.log | head -5; cp /tmp/bench-kpcg.log "$OUT/"
hdr done
