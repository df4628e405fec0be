#!/usr/bin/env bash
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/probe-24.log") 2>&1
date -u +%FT%TZ; nvidia-smi --query-gpu=name,uuid,driver_version,pstate,clocks.sm,clocks.mem --format=csv,noheader
echo "== idle facts"
cat /sys/devices/system/cpu/cpuidle/current_driver /sys/devices/system/cpu/cpuidle/current_governor* 2>&1
for s in /sys/devices/system/cpu/cpu0/cpuidle/state*; do echo "$s $(cat $s/name) latency $(cat $s/latency) disable $(cat $s/disable) usage $(cat $s/usage)"; done
ls /sys/module/haltpoll/parameters 2>&1 && grep . /sys/module/haltpoll/parameters/* 2>&1
cat /sys/module/pcie_aspm/parameters/policy 2>&1
cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>&1
for d in /sys/bus/pci/devices/*; do [ "$(cat $d/vendor)" = 0x10de ] && echo "gpu $d $(cat $d/power/control 2>/dev/null) link $(cat $d/current_link_speed 2>/dev/null)" && (command -v lspci >/dev/null && lspci -vvv -s ${d##*/} 2>&1 | grep -i -E "aspm|lnkctl|lnksta"); done
echo "== after gap 2"; for i in 1 2; do timeout 100 /opt/torch/.venv/bin/python3 .gpu-deps/explore/after-gap2.py baselines/submissions/rff_ridge.py; done
date -u +%FT%TZ
