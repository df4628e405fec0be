#!/usr/bin/env bash
# Device driver, second call on the machine run-h.sh built on: scripts/gpu-test (every GPU check,
# now with each worker moved into its group's method folder before its method is loaded, and what
# it read dropped when its call ends), and the pipe-inode channel probe.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PY=/opt/torch/.venv/bin/python3; D=$(pwd)/.gpu-deps/data
timeout 420 scripts/gpu-test build > "$OUT/gpu-test-h.log" 2>&1; echo "gpu-test exit $?"
grep -E "gpu-test:|FAIL" "$OUT/gpu-test-h.log" | head -30
RATCHET_PYTHON="$PY" RATCHET_DATA="$D" timeout 150 sh tests/redteam/try.sh tests/redteam/inode_channel.py /tmp/rt3 | grep -E "==|REDTEAM" | cut -c1-300 | tee "$OUT/inode-channel-h.log"
