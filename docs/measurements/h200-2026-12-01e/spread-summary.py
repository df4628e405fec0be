"""The table of docs/performance.md's section on the spread of rff_ridge's calls, from the probes'
JSON lines: python3 spread-summary.py probe-spread.jsonl probe-spread2.jsonl"""

import json
import statistics as st
import sys

STEPS = ["means", "eigh", "metric", "features", "gram", "cholesky", "solve", "predict"]
AFTER_SYNC = [0, 1, 2, 5, 6]  # the steps that follow one of the method's own synchronizations
ON_DEVICE = [3, 4, 7]

for path in sys.argv[1:]:
    rows = [json.loads(line) for line in open(path)]
    modes = list(dict.fromkeys(r["mode"] for r in rows))
    for mode in modes:
        calls = [r for r in rows if r["mode"] == mode]
        ms = [r["ms"] for r in calls]
        after = [sum(r["steps"][i] for i in AFTER_SYNC) for r in calls]
        device = [sum(r["steps"][i] for i in ON_DEVICE) for r in calls]
        clocks = sorted({(r["before"]["sm_mhz"], r["after"]["sm_mhz"]) for r in calls})
        reasons = sorted({(r["before"]["reasons"], r["after"]["reasons"]) for r in calls})
        print(f"{path} {mode}: {len(calls)} calls; ms median {st.median(ms):.3f}, sd {st.stdev(ms):.3f}, "
              f"{min(ms):.3f}-{max(ms):.3f}; steps after a sync: median {st.median(after):.3f}, "
              f"sd {st.stdev(after):.3f}; device-bound steps sd {st.stdev(device):.4f}; "
              f"correlation of ms with the steps after a sync {st.correlation(ms, after):.3f}; "
              f"SM MHz before/after {clocks}; clock-event reasons {reasons}")
        print("   sd per step: " + ", ".join(
            f"{name} {st.stdev([r['steps'][i] for r in calls]):.3f}" for i, name in enumerate(STEPS)))
        if mode == "hot":
            print(f"   calls 6-{len(ms)}: median {st.median(ms[5:]):.3f}, sd {st.stdev(ms[5:]):.3f}")
