#!/usr/bin/env bash
# Do the method's first calls (the warm-up: lazy module loading) of separate processes run in
# parallel on one GPU? warmup.py "calls" run alone, then 2 and 3 at once, twice each.
PY=/opt/torch/.venv/bin/python3
for k in 1 2 3 1 2 3; do
  echo "=== $k at once"
  for i in $(seq 1 $k); do
    ( $PY .gpu-deps/explore/warmup.py calls 2>&1 | sed "s/^/[$k.$i] /" ) &
  done
  wait
done
