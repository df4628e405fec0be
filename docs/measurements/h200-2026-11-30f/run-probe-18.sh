#!/usr/bin/env bash
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/labels-idle-2.log") 2>&1
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid --format=csv,noheader
for i in 1 2; do echo "== pass $i"; timeout 120 /opt/torch/.venv/bin/python3 .gpu-deps/explore/labels-idle.py baselines/submissions/rff_ridge.py; done
