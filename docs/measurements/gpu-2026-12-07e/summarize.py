#!/usr/bin/env python3
"""One line per evidence directory of `ratchet score`: the outcome, the ranked time, the compile
step (its whole time, files, bytes, failure), and per call the time between call starts and the
method's warm-up (steps `warmed` - `loaded`), medians. Usage: summarize.py LABEL WALL_S DIR."""
import json
import statistics
import sys
from pathlib import Path

label, wall, ev = sys.argv[1], float(sys.argv[2]), Path(sys.argv[3])
report = json.loads((ev / "report.json").read_text()) if (ev / "report.json").is_file() else {}
records = report.get("records", {})
rec = next(iter(records.values()), {})
outcome = rec.get("outcome", {}).get("status", "?")
ranked = rec.get("ranked_ms")
runs = sorted(ev.glob("records/*/run-1"))
line = f"{label}: wall {wall:.1f} s, {outcome}, ranked {ranked}"
if runs:
    run = runs[0]
    comp = run / "compile.json"
    if comp.is_file():
        c = json.loads(comp.read_text())
        line += (f"; compile step {c['whole_ms'] / 1e3:.1f} s (load {c['load_ms'] / 1e3:.2f}, "
                 f"warm-up {c['warmup_ms'] / 1e3:.2f}), {len(c['files'])} files, "
                 f"{sum(f['bytes'] for f in c['files'])} bytes, failure {c['failure']}")
    else:
        line += "; no compile step"
    calls = json.loads((run / "calls.json").read_text()) if (run / "calls.json").is_file() else []
    warm = [c["phases"]["steps"]["warmed"] - c["phases"]["steps"]["loaded"]
            for c in calls if "warmed" in c["phases"].get("steps", {})]
    if warm:
        line += f"; warm-up per call median {statistics.median(warm):.0f} ms (max {max(warm):.0f})"
    line += f"; {len(calls)} calls"
print(line)
