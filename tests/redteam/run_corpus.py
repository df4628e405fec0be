#!/usr/bin/env python3
"""Scores every file of the red-team corpus (tests/redteam/) with `ratchet score` under a short
rule set and checks each against the outcome its header expects ("Expected: qualified" with every
REDTEAM-PROBE line of its call logs saying "found nothing", or "Expected: RULE" with RULE among
the rules broken and no ESCAPE line). A new escape is then a failure of this test, not a reading
of logs. Files listed in NOT_RUN are skipped, each with its reason (printed).

    tests/redteam/run_corpus.py BUILD_DIR [FILE ...]      exit 0 when every file ends as expected

With REDTEAM_KEEP=FOLDER set, each file's evidence is kept there (FOLDER/NAME.evidence).
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "redteam")

# Skipped, with why: each names a limit the sandbox does not have yet (docs/sandbox.md, "What a
# worker can still do"), or one whose test would load the machine it runs on.
NOT_RUN = {
    "inode_channel.py": "open: a pipe's inode number comes from a counter the machine shares "
                        "(docs/sandbox.md, 'What a worker can still do')",
}
CHANNELS = ("pid_channel_",)
TIMING_RULES = {"timing-call", "timing-group", "dispersion-slow", "dispersion-fast"}


def expected_of(path):
    for line in open(path, encoding="utf-8", errors="replace"):
        match = re.match(r"\s*(?:#|//)\s*Expected:\s*([a-z-]+)", line)
        if match:
            return match.group(1)
    return None


def compile_step_of(path):
    """The file's "Compile-step: always|never" header line, or None (the default)."""
    for line in open(path, encoding="utf-8", errors="replace"):
        match = re.match(r"\s*(?:#|//)\s*Compile-step:\s*([a-z]+)", line)
        if match:
            return match.group(1)
    return None


def cpu_flush_bytes(folder="/sys/devices/system/cpu/cpu0/cache"):
    """What worker.py's cpu_flush_bytes() gives on this machine: twice the largest cache of cpu0,
    at least 8 MiB; 64 MiB when unknown."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    largest = None
    for path in glob.glob(os.path.join(folder, "index*", "size")):
        text = open(path).read().strip()
        digits, unit = (text[:-1], units[text[-1]]) if text[-1:] in units else (text, 1)
        if digits.isdigit():
            largest = max(largest or 0, int(digits) * unit)
    return 64 << 20 if largest is None else max(2 * largest, 8 << 20)


def rules_file(folder, strict_timing):
    rules = json.load(open(os.path.join(ROOT, "runner", "rules", "mnist-a100-1.5.0.json")))
    rules["calls"].update(mnist_calls=3, holdout_calls=1)
    rules["timing"].update(calibration_calls=4, calibration_discard=1)
    # The probes search the view during their warm-up call (dataset_magic_scan for up to 40 s,
    # setuid_exec runs what it finds): a warm-up limit below that made them time out on a busy
    # machine. No file expects a warm-up to time out (hang_in_timed_call hangs in its timed call,
    # hang_static_ctor while it loads).
    rules["limits"].update(warmup_max_call_ms=60000, later_warmup_max_call_ms=60000,
                           max_call_ms=4000, timed_call_grace_s=1, import_s=20)
    # Low enough that the hogs and bombs hit them without loading a 2-core, 24 GiB machine; an
    # honest worker (torch imported, ncm.py) stays well under them. A CPU worker also holds the
    # buffer it flushes the caches with before each window, twice the largest cache of cpu0
    # (runner/worker/worker.py, cpu_flush_bytes): about 1 GiB on a machine whose L3 reads 480 MiB;
    # and once it has forked (fork_bomb.py), its next flush copies every page of that buffer.
    rules["sandbox"].update(memory_bytes=(1 << 30) + 2 * cpu_flush_bytes(), processes=256,
                            folder_bytes=256 << 20,
                            file_bytes=128 << 20, compile_s=60, compile_memory_bytes=1 << 30,
                            compile_output_bytes=16 << 20)
    if not strict_timing:  # a busy machine's noise must not decide a probe's outcome
        rules["dispersion"]["slack_ms"] = 1000.0
        rules["timing"].update(call_slack_ms=1000.0, group_slack_ms=1000.0)
    path = os.path.join(folder, "rules-%s.json" % ("strict" if strict_timing else "fast"))
    json.dump(rules, open(path, "w"), indent=2)
    return path


def check(ratchet, path, folder):
    name = os.path.relpath(path, CORPUS)
    expected = expected_of(path)
    if expected is None:
        return False, "no 'Expected:' line in its header"
    out = os.path.join(folder, name.replace("/", "-") + ".evidence")
    spec = path + ":method" if path.endswith(".py") else path
    env = dict(os.environ)
    if compile_step_of(path):
        env["RATCHET_COMPILE_STEP"] = compile_step_of(path)
    started = time.time()
    run = subprocess.run([ratchet, "score", spec, "--band", "2000", "--runs", "1", "--rules",
                          rules_file(folder, expected in TIMING_RULES), "--out", out],
                         capture_output=True, text=True, errors="replace", env=env)
    took = time.time() - started
    try:
        report = json.load(open(os.path.join(out, "report.json")))
    except OSError:
        return False, f"no report.json (exit {run.returncode}): {run.stdout[-400:]}{run.stderr[-400:]}"
    # Whatever the file printed, ratchet's own output reaches a terminal with no control byte.
    printed = run.stdout + run.stderr
    if "\x1b" in printed or "\x07" in printed:
        return False, "ratchet printed a raw ESC or BEL byte"
    record = next(iter(report["records"].values()))
    broken = set(record["outcome"]["broken"])
    probes = []
    cap = json.load(open(rules_file(folder, False)))["limits"]["worker_log_bytes"]
    logs = sorted(glob.glob(os.path.join(out, "records", "*", "run-*", "logs", "*.log")))
    oversized = [log for log in logs if os.path.getsize(log) > cap]
    if oversized:
        return False, f"{os.path.basename(oversized[0])} holds more than the {cap}-byte tail"
    # A log cut to its tail (a flood) may have lost the probe's line.
    flooded = any(os.path.getsize(log) >= cap - 1000 for log in logs)
    for log in logs:
        # Call logs are numbered; the compile step's (logs/compile.log) counts as call 0.
        stem = os.path.basename(log).split(".")[0]
        call = int(stem) if stem.isdigit() else 0
        for line in open(log, encoding="utf-8", errors="replace"):
            if "REDTEAM-PROBE" in line:
                probes.append((call, line.strip()[:300]))
    # The channels between calls: the first call's predecessor is another run's worker, or none.
    escapes = [line for call, line in probes if ("ESCAPE" in line or "ERROR" in line)
               and not (name.startswith(CHANNELS) and call == 1)]
    if escapes:
        return False, f"{len(escapes)} probe line(s) not clean: {escapes[0]}"
    if expected == "qualified":
        if broken - TIMING_RULES:
            return False, f"expected qualified, broke {sorted(broken)}"
        is_probe = "REDTEAM-PROBE" in open(path, encoding="utf-8", errors="replace").read()
        if is_probe and not flooded and not any("found nothing" in line for _, line in probes):
            return False, "expected probe lines saying 'found nothing', found none"
        return True, f"qualified, {len(probes)} probe lines clean, output clean ({took:.0f} s)"
    if expected not in broken:
        return False, f"expected {expected}, broke {sorted(broken) or 'nothing'}"
    return True, f"{expected} ({took:.0f} s)"


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    ratchet = os.path.join(os.path.abspath(sys.argv[1]), "ratchet")
    if os.geteuid() != 0:
        print("skipped: the corpus tests the full sandbox, which needs root")
        return 77
    files = sys.argv[2:] or sorted(glob.glob(os.path.join(CORPUS, "*.py")) +
                                   glob.glob(os.path.join(CORPUS, "*.cpp")) +
                                   glob.glob(os.path.join(CORPUS, "named", "*")))
    files = [f for f in files if os.path.basename(f) != "run_corpus.py"]
    failed = 0
    keep = os.environ.get("REDTEAM_KEEP")  # a folder to keep the evidence in, for a look after
    with tempfile.TemporaryDirectory(prefix="ratchet-redteam-") as scratch:
        folder = keep or scratch
        os.makedirs(folder, exist_ok=True)
        os.chmod(folder, 0o755)
        for path in files:
            base = os.path.basename(path)
            if base in NOT_RUN and "/named/" not in path:
                print(f"skip {base}: {NOT_RUN[base]}")
                continue
            ok, what = check(ratchet, os.path.abspath(path), folder)
            print(("ok   " if ok else "FAIL ") + os.path.relpath(path, CORPUS) + ": " + what, flush=True)
            failed += not ok
    print(f"{len(files)} files, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
