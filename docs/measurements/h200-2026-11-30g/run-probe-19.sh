#!/usr/bin/env bash
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/probe-19.log") 2>&1
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,pstate,clocks.sm,clocks.mem --format=csv,noheader
echo "== facts"; lscpu | head -30; (command -v numactl && numactl -H) ; nvidia-smi topo -m
for f in /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/shmem_enabled; do echo "$f: $(cat $f)"; done
grep -i huge /proc/meminfo; cat /proc/self/status | grep -i allowed
for d in /sys/bus/pci/devices/*; do [ "$(cat $d/vendor)" = 0x10de ] && echo "gpu $d numa $(cat $d/numa_node) $(cat $d/current_link_speed 2>/dev/null) x$(cat $d/current_link_width 2>/dev/null)"; done
echo "== inputs step"; timeout 200 /opt/torch/.venv/bin/python3 .gpu-deps/explore/inputs-step.py
echo "== labels variants"; for i in 1 2; do timeout 120 /opt/torch/.venv/bin/python3 .gpu-deps/explore/labels-variants.py baselines/submissions/rff_ridge.py; done
date -u +%FT%TZ
