#!/usr/bin/env bash
# One device call: run-e.sh (build, the bundled baseline, its audit, the page-cache probe), then
# methods-e.sh for whatever fits before LIMIT_S seconds from the start.
T0=$(date +%s)
export DEADLINE=$(( T0 + ${LIMIT_S:-560} ))
bash docs/measurements/gpu-2026-12-07e/run-e.sh
bash docs/measurements/gpu-2026-12-07e/methods-e.sh
