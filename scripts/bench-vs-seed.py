"""The driver of scripts/bench-vs-seed: one method scored N times by the seed scorer and N times
by each of ratchet's workers (native and Python), one run after another, then a side-by-side
table. docs/bench-vs-seed.md says what it runs and what every figure means.

Run it through scripts/bench-vs-seed, which picks the interpreter (this file runs under the same
interpreter the seed scorer's workers and ratchet's Python worker use). It needs only the standard
library; the seed scorer it loads needs numpy, and its workers torch.

    python3 scripts/bench-vs-seed.py --python PATH [options]    (see --help)
    python3 scripts/bench-vs-seed.py _seed-run SPEC.json         (one seed run; internal)
"""

import argparse
import fcntl
import gzip
import hashlib
import json
import math
import os
import platform
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED_NAME = "000_37e8900d37b7eec5.txt"
SANDBOX_LOCK = "/run/ratchet-sandbox.lock"  # ratchet's (runner/sandbox/lock.h): one sandbox user
SIDES = ("seed", "native", "python")
SIDE_TITLES = {"seed": "seed scorer (.py)", "native": "ratchet native (.cpp)",
               "python": "ratchet Python (.py)"}
# With --rules-b, each of ratchet's sides also runs under that rule set, beside itself in
# every round: "native-b", "python-b". With --worker-dir-b, the Python side does with that
# folder's worker.py: "python-b" (and the native side too when --rules-b is given as well).
B = "-b"


def round_order(sides, k):
    """The sides in round k: as given, but each b side goes first in every even round, so that
    neither setting always runs second."""
    order = list(sides)
    if k % 2 == 0:
        for i in range(len(order) - 1):
            if order[i + 1] == order[i] + B:
                order[i], order[i + 1] = order[i + 1], order[i]
    return order


def side_title(side):
    base = side.removesuffix(B)
    return SIDE_TITLES[base] + (", b" if side.endswith(B) else "")
EXIT_MEANING = {2: "bad usage or input", 3: "the harness could not do its work",
                130: "interrupted"}


class Fail(Exception):
    """Stops the benchmark with one line on stderr and this exit code."""

    def __init__(self, message, code=3):
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------------------------------------
# The seed's side, in a process of its own per run
# ---------------------------------------------------------------------------------------------


def load_seed_module(path):
    """The seed scorer imported as the module `mnist` from its own file. Its workers copy
    mnist.__file__ into their folder, so the module keeps pointing at a file that stays."""
    import importlib.machinery
    import importlib.util

    sys.dont_write_bytecode = True  # nothing written beside the seed's file
    loader = importlib.machinery.SourceFileLoader("mnist", str(path))
    spec = importlib.util.spec_from_loader("mnist", loader)
    module = importlib.util.module_from_spec(spec)
    module.__file__ = str(path)
    sys.modules["mnist"] = module
    loader.exec_module(module)
    return module


def idx_bytes(entry):
    """The IDX bytes of one dataset file that `ratchet datasets` verified, checked again against
    the sha256 it reported (of the decompressed bytes), so a file changed since is refused."""
    data = Path(entry["path"]).read_bytes()
    if entry["path"].endswith(".gz"):
        data = gzip.decompress(data)
    digest = hashlib.sha256(data).hexdigest()
    if digest != entry["sha256"]:
        raise RuntimeError(f"{entry['path']} changed since ratchet verified it: its IDX bytes have "
                           f"sha256 {digest}, not {entry['sha256']}")
    return data


def seed_pool(mnist, dataset):
    """The seed's load_pool() on local files instead of its download: the same read_idx,
    area_weights, float32 arithmetic and clip."""
    import numpy as np

    images = mnist.read_idx(idx_bytes(dataset["images"]), images=True)
    labels = mnist.read_idx(idx_bytes(dataset["labels"]), images=False)
    weights = mnist.area_weights(28, mnist.SIDE)
    pixels = np.matmul(np.matmul(weights, images.astype(np.float32) / np.float32(255)), weights.T)
    np.clip(pixels, 0.0, 1.0, out=pixels)
    return np.ascontiguousarray(pixels, dtype=np.float32), labels


def take_sandbox_lock(keep):
    """As root, ratchet and the seed both kill every process of uid 65534 after each call, so
    they must never run at once: this takes ratchet's own lock, waiting for whoever holds it.
    With `keep` the lock stays held until this process exits (the seed's run); without, it is
    let go at once (the driver, so that a ratchet run starts with the sandbox free and does not
    count another process's run in its wall time). Returns the seconds waited."""
    if os.geteuid() != 0:
        return 0.0
    started = time.perf_counter()
    fd = os.open(SANDBOX_LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    waited = time.perf_counter() - started
    if keep:
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
    else:
        os.close(fd)
    return waited


def seed_run(spec_path):
    """One run of the seed scorer's evaluate() on pools built from the verified files; writes
    {outcome, evaluate_s, load_s, lock_wait_s, record, error} to spec["result"]."""
    began = time.perf_counter()
    spec = json.loads(Path(spec_path).read_text())
    mnist = load_seed_module(spec["seed"])
    built = {}
    for name, source in spec["pools"].items():  # kmnist may name fashion's files, and share its pool
        if source not in built:
            built[source] = seed_pool(mnist, spec["datasets"][source])
    pools = {name: built[source] for name, source in spec["pools"].items()}
    band = mnist.band_bp(spec["difficulty"]) if spec.get("band") is None else spec["band"]
    lock_wait_s = take_sandbox_lock(keep=True)
    record, outcome, error = {}, "qualified", None
    loaded = time.perf_counter()
    try:
        mnist.evaluate(spec["method"], spec["function"], band, verbose=True, pools=pools,
                       energy=None if spec["energy"] else False, record=record)
    except mnist.Disqualified:
        outcome = "disqualified"
    except Exception as exc:  # noqa: BLE001 - reported to the driver, which stops
        outcome, error = "error", f"{type(exc).__name__}: {exc}"
    finished = time.perf_counter()
    sys.stdout.flush()
    result = {"outcome": outcome, "error": error, "band_bp": band,
              "evaluate_s": finished - loaded, "load_s": loaded - began - lock_wait_s,
              "lock_wait_s": lock_wait_s, "record": record}
    Path(spec["result"]).write_text(json.dumps(result, indent=1, default=str) + "\n")
    return 0 if outcome != "error" else 3


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------


def percentile(values, q):
    """Linear interpolation between the closest ranks (numpy's default)."""
    ordered = sorted(values)
    if not ordered:
        return None
    position = (len(ordered) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def spread_p90(values):
    """The 90th percentile of each value's distance from the values' median: the spread of the
    unexplained time without its offset (what the p90 of abs(unexplained) adds to it is the
    offset every call shares)."""
    if not values:
        return None
    middle = statistics.median(values)
    return percentile([abs(v - middle) for v in values], 90)


def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def call_steps(calls):
    """Where one ratchet run's calls went, from each call's steps (phases.steps, ms since the
    call began; docs/scoring.md): the mean interval between two calls' starts (the first call's
    to the last call's over the calls between: with warm-ups in pairs the intervals alternate
    short and long, so their median would say little), the median
    moment the method was loaded (its `load` answered), and the median warm-up (the method's first call in its
    fresh worker). None for a run without them (the seed's)."""
    starts, loaded, warmups = [], [], []
    for c in calls:
        steps = (c.get("phases") or {}).get("steps") or {}
        clock = (c.get("worker") or {}).get("clock_ns") or {}
        if "worker_replying" in steps and "replying" in clock:
            # The call's start on the monotonic clock, from the worker's own instant of its hello.
            starts.append(clock["replying"] / 1e6 - steps["worker_replying"])
        if "loaded" in steps and "warmed" in steps:
            loaded.append(steps["loaded"])
            warmups.append(steps["warmed"] - steps["loaded"])
    if len(starts) != len(calls) or len(starts) < 2 or not loaded:
        return None
    return {"call_ms": (starts[-1] - starts[0]) / (len(starts) - 1),
            "loaded_at_ms": statistics.median(loaded),
            "warmup_ms": statistics.median(warmups)}


def floor_raise_ms(run):
    """How far the parent's clock raised a qualified run's ranked time above what the method's own
    timer gave: the ranked time less the larger of its datasets' mean reported times (MNIST and
    the hold-out; the ranked time is the larger of the two, each raised to its floor, as judged).
    0 when neither group was floored; None for a run without a ranked time."""
    if run["ranked_ms"] is None or not run["calls"]:
        return None
    groups = {}
    for c in run["calls"]:
        groups.setdefault(c["dataset"] == "mnist", []).append(c["ms"])
    own = max(statistics.mean(ms) for ms in groups.values())
    return max(0.0, run["ranked_ms"] - own)


# The steps of a timed window, in order (docs/scoring.md: phases.timed and phases.calibration).
WINDOW_STEPS = ("write", "to_worker", "inputs", "method", "labels", "to_parent")


def unexplained_by_step(calls):
    """Where the unexplained time sits, for ratchet's calls: per step of the window, the median over
    the calls of the timed call's step less the calibration's median of the same step; for the
    method step, less the method's own time too (what the worker's clock saw beyond the events).
    Medians of each step, so they need not add up to the median unexplained time. None when no
    call keeps its window's steps (the seed's calls)."""
    diffs = {step: [] for step in WINDOW_STEPS}
    for c in calls:
        phases = c.get("phases") or {}
        timed, calibration = phases.get("timed"), phases.get("calibration")
        if not isinstance(timed, dict) or not isinstance(calibration, dict):
            continue
        if not all(isinstance(timed.get(k), (int, float)) and
                   isinstance(calibration.get(k), (int, float)) for k in WINDOW_STEPS):
            continue
        for step in WINDOW_STEPS:
            diff = timed[step] - calibration[step]
            diffs[step].append(diff - c["ms"] if step == "method" else diff)
    if not diffs["write"]:
        return None
    return {step: statistics.median(values) for step, values in diffs.items()}


def window_step_medians(calls):
    """Each step's own median, ms: {"timed": {step: ...}, "calibration": {step: ...}} over the
    calls that keep both windows' steps (the calibration's of a call being its calibration's
    median). A step that moved between two settings moved in the calibration or in the timed
    call: the offsets of unexplained_by_step cannot tell which. None for the seed's calls."""
    kept = []
    for c in calls:
        phases = c.get("phases") or {}
        timed, calibration = phases.get("timed"), phases.get("calibration")
        if isinstance(timed, dict) and isinstance(calibration, dict) and all(
                isinstance(w.get(k), (int, float)) for w in (timed, calibration)
                for k in WINDOW_STEPS):
            kept.append((timed, calibration))
    if not kept:
        return None
    return {which: {step: statistics.median(pair[i][step] for pair in kept)
                    for step in WINDOW_STEPS}
            for i, which in enumerate(("timed", "calibration"))}


def mnist_call_sd(run):
    """The sample standard deviation of `ms` over one run's MNIST calls; None with fewer than 2."""
    ms = [c["ms"] for c in run["calls"] if c["dataset"] == "mnist"]
    return statistics.stdev(ms) if len(ms) >= 2 else None


def summarize(runs):
    """The figures of one side over its runs (see docs/bench-vs-seed.md)."""
    calls = [c for r in runs for c in r["calls"]]
    unexplained = [c["parent_ms"] - c["overhead_ms"] - c["ms"] for c in calls]
    ranked = [r["ranked_ms"] for r in runs if r["ranked_ms"] is not None]
    mnist = [c for c in calls if c["dataset"] == "mnist"]
    correct, total = sum(c["correct"] for c in mnist), sum(c["total"] for c in mnist)
    energy = [r["energy_mj_per_call"] for r in runs if r["energy_mj_per_call"] is not None]
    cv = statistics.stdev(ranked) / statistics.mean(ranked) if len(ranked) >= 2 else None
    steps = [call_steps(r["calls"]) for r in runs]
    steps = [x for x in steps if x is not None]
    call_sds = [mnist_call_sd(r) for r in runs]
    return {
        "runs": len(runs),
        "qualified_runs": sum(r["outcome"] == "qualified" for r in runs),
        "wall_s_median": statistics.median(r["wall_s"] for r in runs),
        "wall_s": [r["wall_s"] for r in runs],
        "calls": len(calls),
        "overhead_ms_median": median_or_none(c["overhead_ms"] for c in calls),
        "unexplained_ms_abs_p90": percentile([abs(u) for u in unexplained], 90),
        "unexplained_ms_median": median_or_none(unexplained),
        "unexplained_ms_spread_p90": spread_p90(unexplained),
        "ranked_ms_median": median_or_none(ranked),
        "ranked_ms": [r["ranked_ms"] for r in runs],
        "ranked_ms_cv_sample": cv,
        # The spread of single calls, which the ranked time's means carry into the CV.
        "mnist_call_ms_sd": call_sds,
        "mnist_call_ms_sd_median": median_or_none(call_sds),
        "floor_raise_ms": [floor_raise_ms(r) for r in runs],
        "unexplained_by_step_ms": unexplained_by_step(calls),
        "window_steps_ms": window_step_medians(calls),
        "mnist_error": 1 - correct / total if total else None,
        "energy_mj_per_call_median": median_or_none(energy),
        "energy_mj_per_call": [r["energy_mj_per_call"] for r in runs],
        # Medians over the runs of each run's medians (ratchet's sides only).
        "call_ms_median": median_or_none(x["call_ms"] for x in steps),
        "loaded_at_ms_median": median_or_none(x["loaded_at_ms"] for x in steps),
        "warmup_ms_median": median_or_none(x["warmup_ms"] for x in steps),
    }


def compare_with_seed(summary, seed):
    """Ratios against the seed's figures: wall-time speed-up (seed / side, of the medians) and the
    ranked time's difference in percent ((side - seed) / seed)."""
    def ratio(a, b):
        return a / b if a is not None and b else None

    def percent(a, b):
        return (a - b) / b * 100 if a is not None and b else None

    return {"wall_speedup": ratio(seed["wall_s_median"], summary["wall_s_median"]),
            "ranked_ms_diff_percent": percent(summary["ranked_ms_median"], seed["ranked_ms_median"]),
            "energy_diff_percent": percent(summary["energy_mj_per_call_median"],
                                           seed["energy_mj_per_call_median"])}


# ---------------------------------------------------------------------------------------------
# The benchmark
# ---------------------------------------------------------------------------------------------


class Console:
    """Prints to the terminal and appends the same text to OUT/bench.log."""

    def __init__(self, path):
        self.log = open(path, "a", encoding="utf-8")

    def __call__(self, text="", end="\n"):
        for stream in (sys.stdout, self.log):
            stream.write(text + end)
            stream.flush()


def stop(proc):
    """Lets a child that a terminal's ^C reached too finish on its own (ratchet finalizes its
    evidence as interrupted, the seed kills its worker), and interrupts it only when it did not."""
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        proc.wait()


def run_logged(argv, log_path, env=None):
    """argv to completion, its stdout and stderr into log_path: (exit code, wall seconds)."""
    with open(log_path, "wb") as log:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env,
                                stdin=subprocess.DEVNULL)
        try:
            code = proc.wait()
        except BaseException:
            stop(proc)
            raise
        return code, time.perf_counter() - started


def read_json(path, what):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise Fail(f"cannot read {what} {path}: {exc}") from None


def energy_of(run_entry, record, run_dir):
    """(mJ per call or None, the reason it is None or ''). ratchet's report carries the column
    per run in an "energy" object with "mj_per_call"; the record's own and the run's energy.json
    are read too, whichever exists."""
    holders = [run_entry.get("energy"), record.get("energy")]
    energy_file = Path(run_dir) / "energy.json"
    if energy_file.is_file():
        try:
            document = json.loads(energy_file.read_text())
            holders += [document, document.get("summary") if isinstance(document, dict) else None]
        except ValueError:
            pass
    for holder in holders:
        if isinstance(holder, dict) and "mj_per_call" in holder:
            value = holder["mj_per_call"]
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value), ""
            problems = holder.get("problems") or []
            reason = holder.get("reason") or "; ".join(
                p.get("message", str(p)) if isinstance(p, dict) else str(p) for p in problems)
            return None, reason or "not measured"
    return None, "no energy in the evidence"


class Bench:
    def __init__(self, args, say):
        self.args, self.say = args, say
        self.out = args.out
        self.ratchet = str(args.build / "ratchet")
        self.ratchet_b = str(args.build_b / "ratchet") if args.build_b else None
        self.env = dict(os.environ, RATCHET_CACHE=str(self.out / "cache"))
        self.datasets, self.seed_pools, self.notes = args.datasets, args.seed_pools, args.notes
        self.common = (["--band", str(args.band)] if args.band is not None
                       else ["--difficulty", str(args.difficulty)])
        if args.data:
            self.common += ["--data", str(args.data)]
        self.common += ["--python", args.python]

    # -- ratchet ------------------------------------------------------------------------------

    def ratchet_argv(self, side, evidence):
        base = side.removesuffix(B)
        target = str(self.args.cpp) if base == "native" else f"{self.args.py}:{self.args.function}"
        ratchet = self.ratchet_b if side.endswith(B) and self.ratchet_b else self.ratchet
        argv = [ratchet, "score", target, *self.common, "--out", str(evidence)]
        rules = self.args.rules
        if side.endswith(B) and self.args.rules_b:
            rules = self.args.rules_b
        if rules:
            argv += ["--rules", rules]
        no_energy_flag = (getattr(self.args, "no_energy_flag_b", self.args.no_energy_flag)
                          if ratchet is self.ratchet_b else self.args.no_energy_flag)
        if not self.args.energy and no_energy_flag:
            argv.append("--no-energy")
        return argv

    def cache(self, side):
        """The compile cache of a side's `ratchet score`: with --build-b, the b sides keep their
        own, since the two builds may compile the twin differently."""
        return self.out / ("cache-b" if side.endswith(B) and self.ratchet_b else "cache")

    def ratchet_env(self, side):
        """The environment of a side's `ratchet score`: its compile cache, and with
        --worker-dir-b, a b side's Python worker from that folder."""
        env = dict(self.env, RATCHET_CACHE=str(self.cache(side)))
        if side.endswith(B) and self.args.worker_dir_b:
            env["RATCHET_WORKER_DIR"] = str(self.args.worker_dir_b)
        return env

    def prime_native(self, side="native"):
        """Compiles the native twin into the side's cache before the timed runs: a ratchet
        score that is interrupted (SIGINT) as soon as the compiled library is in the cache."""
        evidence = self.out / "evidence" / f"{side}-compile"
        log_path = self.out / "logs" / f"{side}-compile.log"
        library_dir = self.cache(side) / "native"
        started = time.perf_counter()
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(self.ratchet_argv(side, evidence), stdout=log,
                                    stderr=subprocess.STDOUT, env=self.ratchet_env(side),
                                    stdin=subprocess.DEVNULL)
            compiled = None
            try:
                while proc.poll() is None:
                    if library_dir.is_dir() and any(p.suffix == ".so" for p in library_dir.iterdir()):
                        compiled = time.perf_counter() - started
                        proc.send_signal(signal.SIGINT)
                        break
                    time.sleep(0.1)
                code = proc.wait()
            except BaseException:
                stop(proc)
                raise
        if not (library_dir.is_dir() and any(p.suffix == ".so" for p in library_dir.iterdir())):
            raise Fail(f"the native twin {self.args.cpp} was not compiled (ratchet score exited "
                       f"{code}); see {log_path}")
        return compiled if compiled is not None else time.perf_counter() - started

    def ratchet_run(self, side, k):
        evidence = self.out / "evidence" / f"{side}-{k}"
        log_path = self.out / "logs" / f"{side}-{k}.log"
        waited = take_sandbox_lock(keep=False)
        argv = self.ratchet_argv(side, evidence)
        code, wall = run_logged(argv, log_path, env=self.ratchet_env(side))
        if code not in (0, 1):
            raise Fail(f"ratchet score ({side}, run {k}) exited {code} "
                       f"({EXIT_MEANING.get(code, 'unexpected')}); see {log_path}", code=3)
        report = read_json(evidence / "report.json", "ratchet's report")
        (record_id, record), = report["records"].items()
        entry = record["runs"][0]
        run_dir = evidence / "records" / record_id / "run-1"
        # A run that ended before its first call (a source refusal) has no calls.json.
        calls = (read_json(run_dir / "calls.json", "ratchet's calls")
                 if (run_dir / "calls.json").is_file() else [])
        energy, energy_note = energy_of(entry, record, run_dir)
        text = log_path.read_text(errors="replace")
        return {"side": side, "run": k, "argv": argv, "wall_s": wall, "exit": code,
                "outcome": "qualified" if entry.get("qualified") else "disqualified",
                "broken": sorted({p.get("rule", "?") for p in entry.get("problems", [])}),
                "ranked_ms": entry.get("ranked_ms"), "summary": entry.get("summary"),
                "band_bp": record.get("band_bp"), "holdout": entry.get("holdout"),
                "warmup": entry.get("warmup"), "single_foreign": entry.get("single_foreign"),
                "sandbox": report.get("sandbox"), "energy_mj_per_call": energy,
                "energy_note": energy_note,
                "lock_wait_s": waited, "waited_for_sandbox_lock": "waiting for it" in text,
                "evidence": str(evidence), "log": str(log_path), "calls": calls}

    # -- seed ---------------------------------------------------------------------------------

    def seed_run(self, k):
        result_path = self.out / "seed" / f"run-{k}.json"
        spec_path = self.out / "seed" / f"run-{k}.spec.json"
        log_path = self.out / "logs" / f"seed-{k}.log"
        spec = {"seed": str(self.args.seed), "method": str(self.args.py),
                "function": self.args.function, "band": self.args.band,
                "difficulty": self.args.difficulty, "energy": self.args.energy,
                "datasets": self.datasets, "pools": self.seed_pools, "result": str(result_path)}
        spec_path.write_text(json.dumps(spec, indent=1) + "\n")
        code, process_wall = run_logged([self.args.python, str(Path(__file__).resolve()),
                                         "_seed-run", str(spec_path)], log_path)
        if not result_path.is_file():
            raise Fail(f"the seed scorer's run {k} stopped (exit {code}) without a result; "
                       f"see {log_path}")
        result = read_json(result_path, "the seed run's result")
        if result["outcome"] == "error":
            raise Fail(f"the seed scorer's run {k} failed: {result['error']}; see {log_path}")
        record = result["record"]
        energy = record.get("energy") if isinstance(record.get("energy"), dict) else None
        mj = energy.get("mj_per_call") if energy else None
        note = "" if mj is not None else (
            "off" if not self.args.energy else
            (energy.get("reason") or "; ".join(energy.get("problems", [])) if energy
             else "not measured (the run did not qualify)"))
        return {"side": "seed", "run": k, "wall_s": result["evaluate_s"],
                "process_wall_s": process_wall, "load_s": result["load_s"],
                "lock_wait_s": result["lock_wait_s"], "exit": code,
                "outcome": result["outcome"], "broken": [],
                "problems": record.get("problems", []),
                "ranked_ms": record.get("ranked_ms"), "summary": record.get("summary"),
                "band_bp": result["band_bp"], "holdout": record.get("holdout"),
                "sandbox": "on" if record.get("sandboxed") else "off",
                "device": record.get("device"), "torch": record.get("torch"),
                "energy_mj_per_call": mj, "energy_note": note,
                "result": str(result_path), "log": str(log_path),
                "calls": record.get("calls", [])}

    # -- the whole of it ----------------------------------------------------------------------

    def run(self):
        args, say = self.args, self.say
        for folder in ("logs", "evidence", "seed"):
            (self.out / folder).mkdir(parents=True, exist_ok=True)
        facts = self.facts()
        say(f"date:      {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}")
        say(f"machine:   {facts['machine']}")
        say(f"device:    {facts['device']}")
        say(f"python:    {args.python} (Python {facts['python']}, torch {facts['torch']}, "
            f"numpy {facts['numpy']})")
        say(f"ratchet:   {self.ratchet} ({facts['ratchet']})")
        if "seed" in args.sides:
            say(f"seed:      {args.seed} (sha256 {facts['seed_sha256'][:16]}...)")
        band = f"band {args.band} bp" if args.band is not None else f"difficulty {args.difficulty}"
        say(f"method:    {args.py}:{args.function} and {args.cpp}; {band}")
        say(f"runs:      {args.runs} per side, in rounds ({', '.join(args.sides)}); energy "
            + ("on" if args.energy else "off" + ("" if args.no_energy_flag else
               " (this ratchet has no --no-energy: it measures energy where it can)")))
        for name, dataset in self.datasets.items():
            say(f"dataset:   {name}: {dataset['images']['path']} "
                f"(sha256 {dataset['images']['sha256'][:16]}...)")
        for note in self.notes:
            say(f"note:      {note}")
        say(f"output:    {self.out}")

        if args.rules or args.rules_b:
            say(f"rules:     ratchet's sides under {args.rules or 'its default'}"
                + (f"; the -b sides under {args.rules_b}" if args.rules_b else ""))
        if args.build_b:
            say(f"build:     the -b sides run {self.ratchet_b} ({facts['ratchet_b']})")
        if args.worker_dir_b:
            say(f"worker:    the -b sides' worker.py from {args.worker_dir_b}")
        for side in ("native", "native" + B):
            if side in args.sides and (side == "native" or args.build_b):
                say(f"{side + ':':10s} compiling the twin into the benchmark's cache (not timed) "
                    "... ", end="")
                say(f"{self.prime_native(side):.1f} s")

        runs = {side: [] for side in args.sides}
        width = max(6, *(len(side) for side in args.sides))
        for k in range(1, args.runs + 1):
            for side in round_order(args.sides, k):
                say(f"round {k}/{args.runs} {side:{width}s}: ", end="")
                row = self.seed_run(k) if side == "seed" else self.ratchet_run(side, k)
                runs[side].append(row)
                say(self.run_line(row, self.seed_pools))

        summaries = {side: summarize(rows) for side, rows in runs.items()}
        ratios = ({side: compare_with_seed(summaries[side], summaries["seed"])
                   for side in args.sides} if "seed" in args.sides else {})
        say()
        for line in self.table(summaries, ratios, runs):
            say(line)
        bands = {r["band_bp"] for rows in runs.values() for r in rows}
        if len(bands) > 1:
            say(f"warning: the sides scored different bands: {sorted(bands)} bp")
        if any(r["outcome"] != "qualified" for rows in runs.values() for r in rows):
            say("warning: some runs did not qualify; their ranked time is left out of the medians")
        waited = [f"{r['side']} run {r['run']}" for rows in runs.values() for r in rows
                  if r.get("waited_for_sandbox_lock")]
        if waited:
            say(f"warning: {', '.join(waited)} waited for the sandbox lock (another ratchet process "
                "started in between); its wall time includes the wait")
        document = {"schema": "ratchet.bench-vs-seed/1", "facts": facts, "notes": self.notes,
                    "options": {"py": str(args.py), "cpp": str(args.cpp),
                                "function": args.function, "difficulty": args.difficulty,
                                "band": args.band, "runs": args.runs, "energy": args.energy,
                                "sides": args.sides, "data": str(args.data) if args.data else None,
                                "rules": args.rules, "rules_b": args.rules_b,
                                "build": str(args.build),
                                "build_b": str(args.build_b) if args.build_b else None,
                                "worker_dir_b": (str(args.worker_dir_b) if args.worker_dir_b
                                                 else None),
                                "no_energy_flag": args.no_energy_flag,
                                "no_energy_flag_b": getattr(args, "no_energy_flag_b",
                                                            args.no_energy_flag)},
                    "datasets": self.datasets, "seed_pools": self.seed_pools,
                    "summary": summaries, "vs_seed": ratios, "runs": runs}
        path = self.out / "bench-vs-seed.json"
        path.write_text(json.dumps(document, indent=1, default=str) + "\n")
        say(f"\nresults: {path}\nlog:     {self.out / 'bench.log'} (each run's log in "
            f"{self.out / 'logs'}, ratchet's evidence in {self.out / 'evidence'})")

    def facts(self):
        args = self.args
        found = args.probe
        version = subprocess.run([self.ratchet, "--version"], capture_output=True, text=True)
        version_b = (subprocess.run([self.ratchet_b, "--version"], capture_output=True,
                                    text=True).stdout.strip() if self.ratchet_b else None)
        model = "?"
        try:
            model = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                         if line.startswith("model name"))
        except (OSError, StopIteration):
            pass
        return {"machine": f"{model}, {os.cpu_count()} cores, {platform.system()} "
                           f"{platform.release()}",
                "device": found["device"] or "no CUDA device (CPU: not GPU times)",
                "python": found["python"], "torch": found["torch"], "cuda": found["cuda"],
                "numpy": found["numpy"], "ratchet": version.stdout.strip(),
                "ratchet_b": version_b,
                "seed_sha256": hashlib.sha256(args.seed.read_bytes()).hexdigest()
                if "seed" in args.sides else None,
                "py_sha256": hashlib.sha256(args.py.read_bytes()).hexdigest(),
                "cpp_sha256": hashlib.sha256(args.cpp.read_bytes()).hexdigest()}

    @staticmethod
    def run_line(row, pools):
        ranked = f"{row['ranked_ms']:.3f} ms" if row["ranked_ms"] is not None else "no ranked time"
        outcome = row["outcome"] + (f" ({', '.join(row['broken'])})" if row["broken"] else "")
        if row.get("problems"):
            outcome += f" ({len(row['problems'])} problem(s): see {row['log']})"
        mnist = [c for c in row["calls"] if c["dataset"] == "mnist"]
        error = (1 - sum(c["correct"] for c in mnist) / sum(c["total"] for c in mnist)
                 if mnist else None)
        wall = (f"evaluate() {row['wall_s']:.1f} s" if row["side"] == "seed"
                else f"wall {row['wall_s']:.1f} s")
        holdout = row["holdout"]
        if row["side"] == "seed" and holdout and pools.get(holdout, holdout) != holdout:
            holdout += f" (given {pools[holdout]}'s pool)"
        parts = [wall, outcome, ranked,
                 f"MNIST error {error:.2%}" if error is not None else "no MNIST call",
                 f"hold-out {holdout}", f"sandbox {row['sandbox']}"]
        if row.get("lock_wait_s", 0) > 0.5:
            parts.append(f"waited {row['lock_wait_s']:.1f} s for the sandbox first (not timed)")
        if row["energy_mj_per_call"] is not None:
            parts.append(f"energy {row['energy_mj_per_call']:.1f} mJ/call")
        return ", ".join(parts)

    def table(self, summaries, ratios, runs):
        def num(value, fmt):
            return "n/a" if value is None else fmt.format(value)

        def each(values, fmt):
            return " / ".join("DQ" if v is None else fmt.format(v) for v in values)

        def energy_cell(side):
            s = summaries[side]
            if s["energy_mj_per_call_median"] is not None:
                return f"{s['energy_mj_per_call_median']:.1f}"
            return "off" if not self.args.energy else "n/a (below)"

        sides = list(summaries)
        rows = [
            ("outcome (qualified runs / runs)",
             {s: f"{summaries[s]['qualified_runs']}/{summaries[s]['runs']}" for s in sides}),
            ("sandbox", {s: ", ".join(sorted({str(r["sandbox"]) for r in runs[s]})) for s in sides}),
            ("whole-run wall time, s (median)",
             {s: num(summaries[s]["wall_s_median"], "{:.2f}") for s in sides}),
            ("whole-run wall time, s (each run)",
             {s: each(summaries[s]["wall_s"], "{:.2f}") for s in sides}),
            ("calibrated overhead_ms per call (median)",
             {s: num(summaries[s]["overhead_ms_median"], "{:.3f}") for s in sides}),
            ("p90 of abs(unexplained) ms over all calls",
             {s: num(summaries[s]["unexplained_ms_abs_p90"], "{:.3f}") for s in sides}),
            ("median unexplained ms over all calls",
             {s: num(summaries[s]["unexplained_ms_median"], "{:+.3f}") for s in sides}),
            ("p90 of abs(unexplained less its median) ms",
             {s: num(summaries[s]["unexplained_ms_spread_p90"], "{:.3f}") for s in sides}),
            ("ranked ms (median of qualified runs)",
             {s: num(summaries[s]["ranked_ms_median"], "{:.3f}") for s in sides}),
            ("ranked ms (each run)", {s: each(summaries[s]["ranked_ms"], "{:.3f}") for s in sides}),
            ("ranked ms raised by the parent's clock (each run)",
             {s: each(summaries[s]["floor_raise_ms"], "{:.3f}") for s in sides}),
            ("ranked ms CV over runs (sample sd / mean)",
             {s: num(summaries[s]["ranked_ms_cv_sample"], "{:.2%}") for s in sides}),
            ("sd of ms over a run's MNIST calls (median of runs)",
             {s: num(summaries[s]["mnist_call_ms_sd_median"], "{:.3f}") for s in sides}),
            ("MNIST error over all runs' MNIST calls",
             {s: num(summaries[s]["mnist_error"], "{:.2%}") for s in sides}),
            ("energy, mJ per call (median)", {s: energy_cell(s) for s in sides}),
            ("per call: ms between calls' starts (mean)",
             {s: num(summaries[s]["call_ms_median"], "{:.0f}") for s in sides}),
            ("per call: ms until the method is loaded (median)",
             {s: num(summaries[s]["loaded_at_ms_median"], "{:.0f}") for s in sides}),
            ("per call: the method's warm-up, ms (median)",
             {s: num(summaries[s]["warmup_ms_median"], "{:.0f}") for s in sides}),
        ]
        if ratios:
            rows += [
                ("wall-time speed-up vs the seed (seed / side)",
                 {s: num(ratios[s]["wall_speedup"], "{:.2f}x") for s in sides}),
                ("ranked ms vs the seed ((side - seed) / seed)",
                 {s: num(ratios[s]["ranked_ms_diff_percent"], "{:+.1f}%") for s in sides}),
            ]
            if any(ratios[s]["energy_diff_percent"] is not None for s in sides):
                rows.append(("energy vs the seed ((side - seed) / seed)",
                             {s: num(ratios[s]["energy_diff_percent"], "{:+.1f}%") for s in sides}))
        header = ["figure"] + [side_title(s) for s in sides]
        body = [[label] + [cells[s] for s in sides] for label, cells in rows]
        widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]

        def line(cells):
            return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"

        lines = [line(header), "| " + " | ".join("-" * w for w in widths) + " |"]
        lines += [line(row) for row in body]
        for side in sides if self.args.energy else ():
            if summaries[side]["energy_mj_per_call_median"] is None:
                notes = sorted({r["energy_note"] for r in runs[side] if r["energy_note"]})
                lines.append(f"energy n/a, {side_title(side)}: {'; '.join(notes) or '?'}")
        for side in sides:
            by_step = summaries[side].get("unexplained_by_step_ms")
            if by_step:
                cells = ", ".join(f"{step} {by_step[step]:+.3f}" for step in WINDOW_STEPS)
                lines.append(f"unexplained by window step, {side_title(side)} (median ms, timed "
                             f"less calibration): {cells}")
            steps = summaries[side].get("window_steps_ms")
            if steps:
                cells = ", ".join(f"{step} {steps['timed'][step]:.3f} / "
                                  f"{steps['calibration'][step]:.3f}" for step in WINDOW_STEPS)
                lines.append(f"window steps, {side_title(side)} (median ms, timed / calibration): "
                             f"{cells}")
        if "seed" in sides:
            process = statistics.median(r["process_wall_s"] for r in runs["seed"])
            lines.append(f"wall time: the seed's is evaluate() alone, its pools built before it "
                         f"(its whole process: {process:.2f} s, median); ratchet's is the whole "
                         f"`ratchet score` process")
        return lines


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="scripts/bench-vs-seed",
        description="Score one method N times with the seed scorer and N times with each of "
                    "ratchet's workers, then print the figures side by side "
                    "(docs/bench-vs-seed.md).")
    sub = ROOT / "baselines" / "submissions"
    parser.add_argument("--py", type=Path, default=sub / "rff_ridge.py",
                        help="the Python method file (default baselines/submissions/rff_ridge.py)")
    parser.add_argument("--cpp", type=Path, default=sub / "rff_ridge.cpp",
                        help="its native twin (default baselines/submissions/rff_ridge.cpp)")
    parser.add_argument("--function", default="method", help="the Python file's function")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--difficulty", type=int, choices=range(1, 6), metavar="K",
                       help="the band of difficulty K, 1-5 (default 1: 5.40%%)")
    group.add_argument("--band", type=int, metavar="BP", help="a band in basis points, 1-9999")
    parser.add_argument("--runs", type=int, default=3, help="runs per side (default 3)")
    parser.add_argument("--energy", action="store_true",
                        help="measure the energy column too (about 80 s more per passing run)")
    parser.add_argument("--data", type=Path, help="a folder holding mnist/ and fashion/ "
                        "(and kmnist/), searched first as by ratchet's --data")
    parser.add_argument("--python", required=True,
                        help="the interpreter of the seed's workers and ratchet's Python worker")
    parser.add_argument("--build", type=Path, default=ROOT / "build",
                        help="the folder holding ratchet and ratchet-worker (default build/)")
    parser.add_argument("--seed", type=Path, help="the seed scorer (default "
                        "$RATCHET_REFERENCE_HARNESS, else ../shared/seeds/" + SEED_NAME +
                        " beside the checkout)")
    parser.add_argument("--sides", default=",".join(SIDES),
                        help="which sides to run, comma-separated (default seed,native,python)")
    parser.add_argument("--rules", metavar="ID|FILE",
                        help="ratchet's rule set: a compiled-in id or a rule-set file (default: "
                        "ratchet's default); the seed keeps its own constants")
    parser.add_argument("--rules-b", metavar="ID|FILE",
                        help="a second rule set: each of ratchet's sides runs under it too, "
                        "beside itself in every round (sides native-b, python-b; first in even "
                        "rounds), so that two rule sets are compared on one board in one session")
    parser.add_argument("--worker-dir-b", type=Path, metavar="DIR",
                        help="a second Python worker: the side python-b runs worker.py and "
                        "check_source.py from DIR ($RATCHET_WORKER_DIR), beside the side python in "
                        "every round (first in even rounds), so that two versions of the worker "
                        "are compared on one board; with --rules-b too, every b side takes both")
    parser.add_argument("--build-b", type=Path, metavar="DIR",
                        help="a second build: each of ratchet's sides runs DIR's ratchet too (its "
                        "ratchet-worker, and the worker.py it finds: DIR/../runner/worker, unless "
                        "--worker-dir-b or $RATCHET_WORKER_DIR names another), beside itself in "
                        "every round (first in even rounds), so that two versions of the harness "
                        "are compared on one board")
    parser.add_argument("--out", type=Path, help="the output folder, new or empty (default "
                        "evidence/bench-vs-seed-<UTC time>)")
    args = parser.parse_args(argv)
    if args.band is None and args.difficulty is None:
        args.difficulty = 1
    if args.band is not None and not 0 < args.band < 10000:
        parser.error("--band must be between 1 and 9999 basis points")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    args.sides = [s for s in args.sides.split(",") if s]
    if not args.sides or any(s not in SIDES for s in args.sides) or len(set(args.sides)) != len(args.sides):
        parser.error(f"--sides takes a comma-separated subset of {','.join(SIDES)}")
    args.sides = [s for s in SIDES if s in args.sides]
    for option, value in (("--rules-b", args.rules_b), ("--build-b", args.build_b)):
        if value is not None and not any(s != "seed" for s in args.sides):
            parser.error(f"{option} needs a side of ratchet's (native or python) in --sides")
    if args.worker_dir_b is not None and "python" not in args.sides:
        parser.error("--worker-dir-b needs the side python in --sides (the native worker "
                     "has no worker.py)")
    if args.rules_b is not None or args.build_b is not None:
        args.sides = [x for s in args.sides for x in ((s,) if s == "seed" else (s, s + B))]
    elif args.worker_dir_b is not None:
        args.sides = [x for s in args.sides for x in ((s, s + B) if s == "python" else (s,))]
    return args


def probe_interpreter(python):
    """{python, torch, cuda, device, numpy} of the interpreter, or Fail when it has no torch."""
    try:
        probe = subprocess.run(
            [python, "-c",
             "import json, platform, torch\n"
             "try:\n    import numpy; n = numpy.__version__\nexcept ImportError:\n    n = None\n"
             "try:\n    d = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None\n"
             "except Exception as e:\n    d = 'CUDA unusable: %s' % e\n"
             "print(json.dumps({'python': platform.python_version(), 'torch': torch.__version__,"
             " 'cuda': torch.version.cuda, 'device': d, 'numpy': n}))"],
            capture_output=True, text=True)
    except OSError as exc:
        raise Fail(f"cannot run the interpreter {python}: {exc.strerror}; pass --python PATH "
                   f"(or set RATCHET_PYTHON) to a python3 with torch") from None
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["?"])[-1]
        raise Fail(f"{python} cannot import torch ({last}); pass --python PATH (or set "
                   f"RATCHET_PYTHON) to a python3 with torch")
    return json.loads(probe.stdout.strip().splitlines()[-1])


def locate_datasets(ratchet, data):
    """ratchet's own search and checks (docs/datasets.md): (the verified files of mnist and of
    the foreign datasets present, which of them stands for each pool the seed builds, notes)."""
    argv = [ratchet, "datasets", "--json"] + (["--data", str(data)] if data else [])
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode == 2 or (proc.returncode != 0 and not proc.stdout.strip()):
        last = (proc.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise Fail(f"ratchet datasets refused the data: {last}", code=2)
    listing = json.loads(proc.stdout)
    present = {d["name"]: {"images": d["images"], "labels": d["labels"]}
               for d in listing["datasets"] if d.get("present")}
    folders = ", ".join(listing.get("folders", [])) or "nowhere"
    hint = "pass --data DIR holding mnist/ and fashion/ (docs/datasets.md)"
    if "mnist" not in present:
        raise Fail(f"mnist is absent (looked in {folders}); {hint}")
    foreign = [name for name in ("fashion", "kmnist") if name in present]
    if not foreign:
        raise Fail(f"no hold-out dataset (fashion or kmnist) is present (looked in {folders}); "
                   f"{hint}")
    pools, notes = {"mnist": "mnist"}, []
    for name in ("fashion", "kmnist"):
        pools[name] = name if name in present else foreign[0]
        if name not in present:
            notes.append(f"{name} is absent: the seed is given {foreign[0]}'s pool as '{name}' "
                         f"too, as ratchet uses {foreign[0]} for both the hold-out and the warm-ups")
    return present, pools, notes


def check_inputs(args):
    """Everything that can be missing, each with one line on what to do."""
    build = args.build.resolve()
    args.build = build
    needed = ["ratchet"] + (["ratchet-worker"] if set(args.sides) - {"seed"} else [])
    if "native" in args.sides:
        needed.append("ratchet-worker.native.json")
    if args.build_b is not None:
        args.build_b = args.build_b.resolve()
    for folder in (build, args.build_b):
        for name in needed if folder else []:
            if not (folder / name).is_file():
                raise Fail(f"{folder / name} is missing; build it: cmake --build {folder} "
                           f"--target ratchet ratchet-worker (on a GPU machine: scripts/gpu-build)")
    args.probe = probe_interpreter(args.python)
    if "seed" in args.sides:
        if args.seed is None:
            explicit = os.environ.get("RATCHET_REFERENCE_HARNESS")
            args.seed = Path(explicit) if explicit else ROOT.parent / "shared" / "seeds" / SEED_NAME
        if not args.seed.is_file():
            raise Fail(f"no seed scorer at {args.seed}; set RATCHET_REFERENCE_HARNESS or pass "
                       f"--seed FILE (or leave it out with --sides native,python)")
        args.seed = args.seed.resolve()
        if args.probe["numpy"] is None:
            raise Fail(f"{args.python} has no numpy, which the seed scorer needs: install it into "
                       f"that environment (pip install numpy; Debian: python3-numpy), or run "
                       f"ratchet's sides alone with --sides native,python")
    for flag, path in (("--py", args.py), ("--cpp", args.cpp)):
        if not path.is_file():
            raise Fail(f"no method file at {path} ({flag})", code=2)
    args.py, args.cpp = args.py.resolve(), args.cpp.resolve()
    if args.data is not None:
        if not args.data.is_dir():
            raise Fail(f"--data {args.data} is not a folder", code=2)
        args.data = args.data.resolve()
    args.datasets, args.seed_pools, args.notes = locate_datasets(str(build / "ratchet"), args.data)
    if args.worker_dir_b is not None:
        args.worker_dir_b = args.worker_dir_b.resolve()
        missing = [name for name in ("worker.py", "check_source.py")
                   if not (args.worker_dir_b / name).is_file()]
        if missing:
            raise Fail(f"--worker-dir-b {args.worker_dir_b} has no {' and no '.join(missing)}",
                       code=2)
    # Each rule set as the ratchet that will read it reads it (an embedded id first, then a file,
    # from this folder), so that a bad one stops the bench here and not after a seed run: the
    # -b sides' under --build-b's.
    build_b = args.build_b or build
    checks = [("--rules", args.rules, build), ("--rules-b", args.rules_b, build_b)]
    if args.build_b is not None and args.rules_b is None:
        checks.append(("--rules", args.rules, build_b))
    for option, value, folder in checks:
        if value is not None:
            probe = subprocess.run([str(folder / "ratchet"), "contract", "--rules", value,
                                    "--python", args.python] +
                                   (["--data", str(args.data)] if args.data else []),
                                   capture_output=True, text=True)
            if probe.returncode != 0:
                why = (probe.stderr.strip().splitlines() or ["exit %d" % probe.returncode])[-1]
                whose = f" (under {folder / 'ratchet'})" if args.build_b is not None else ""
                raise Fail(f"{option} {value}{whose}: {why}", code=2)
    if args.out is None:
        args.out = ROOT / "evidence" / f"bench-vs-seed-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}"
    args.out = args.out.resolve()
    if args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir())):
        raise Fail(f"the output folder {args.out} exists and is not empty; name a new one with "
                   f"--out", code=2)
    args.out.mkdir(parents=True, exist_ok=True)
    def takes_no_energy(folder):
        helptext = subprocess.run([str(folder / "ratchet"), "score", "--help"],
                                  capture_output=True, text=True)
        return "--no-energy" in helptext.stdout + helptext.stderr

    args.no_energy_flag = takes_no_energy(build)
    args.no_energy_flag_b = takes_no_energy(build_b)


def main(argv):
    if argv[:1] == ["_seed-run"]:
        return seed_run(argv[1])
    args = parse_args(argv)
    try:
        check_inputs(args)
        say = Console(args.out / "bench.log")
        Bench(args, say).run()
    except Fail as error:
        print(f"bench-vs-seed: error: {error}", file=sys.stderr)
        return error.code
    except KeyboardInterrupt:
        print("bench-vs-seed: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
