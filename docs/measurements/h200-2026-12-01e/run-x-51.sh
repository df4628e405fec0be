#!/usr/bin/env bash
# Device driver: probe-spread.py, where rff_ridge's slow calls spend their time.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run-51.log") 2>&1
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,clocks.sm,clocks.max.sm,clocks.applications.graphics --format=csv,noheader
nproc; cat /proc/cpuinfo | grep "model name" | head -1
PY=/opt/torch/.venv/bin/python3
timeout 500 $PY .gpu-deps/probe-spread.py ${N:-30} "$OUT/probe-spread.jsonl"
echo "probe exit $?"
date -u +%FT%TZ
