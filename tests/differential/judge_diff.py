"""Differential test of the judge: ratchet's Judge and the seed's judge() on the same calls.

usage: judge_diff.py PROBE

PROBE is the judge_probe binary. It judges under the seed's rule set, mnist-a100/1.2.0, one of
those compiled into ratchet (ratchet's, mnist-a100/1.3.0 and the default mnist-a100/1.4.0, differ
from it only in their id, their version and an added telemetry band, as
tests/rules/rule_set_test.cc pins). The test first
checks that that rule set holds exactly the seed's constants, then generates call lists from a
fixed seed (random runs and edge cases: band boundaries, the draw floor, the 15% hold-out, the
timing gates and the dispersion limits at and one step past their limits, floors, groups of one
to five calls, no hold-out calls, both foreign datasets) and requires, case by case, the same
messages in the same order, each under the rule id ratchet gives its kind, the same summary,
and the same ranked time (to the bit under CPython 3.11, within 1e-9 ms under 3.12 and later).
Exits 77 (skipped) when the seed is not available.
"""

import json
import math
import random
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from seed import load_seed  # noqa: E402

# The rule set of the seed, as judge_probe (and --rules) take it.
RULE_SET = "mnist-a100/1.2.0"
GENERATOR_SEED = 20240617
RANDOM_CASES = 900
# CPython 3.11's sum() adds floats left to right, as ratchet does, so ranked times must agree to
# the bit; 3.12 and later sum with compensation, and the last bits may differ there.
TOLERANCE_MS = 0.0 if sys.version_info < (3, 12) else 1e-9

# Which rule id each kind of seed message belongs to, by how the message begins.
RULE_BY_PREFIX = (
    ("call ", "timing-call"),
    ("MNIST calls:", "timing-group"),
    ("hold-out calls:", "timing-group"),
    ("MNIST accuracy ", "accuracy"),
    ("one MNIST draw ", "draw-floor"),
    ("hold-out accuracy ", "holdout"),
    ("the slowest ", "dispersion-slow"),
    ("the fastest ", "dispersion-fast"),
)


def rule_of(message):
    for prefix, rule in RULE_BY_PREFIX:
        if message.startswith(prefix):
            return rule
    return None


def expected_rule_set(mnist):
    """The rule set document as the seed's constants define it. A few values are literals in the
    seed's code rather than named constants; each is noted where it comes from."""
    return {
        "id": RULE_SET,
        "version": mnist.VERSION,
        "difficulty": {str(level): {"band_bp": band, "labelled_images": images}
                       for level, (band, images) in mnist.DIFFICULTY.items()},
        "draw": {"train": mnist.TRAIN, "test": mnist.TEST, "dims": mnist.DIMS, "side": mnist.SIDE,
                 "source_side": 28,  # read_idx: the IDX images are 28x28
                 "pool_size": mnist.POOL_SIZE},
        "calls": {"mnist_calls": mnist.MNIST_CALLS, "holdout_calls": mnist.HOLDOUT_CALLS},
        "accuracy": {"draw_slack_bp": mnist.DRAW_SLACK_BP, "holdout_error_bp": mnist.HOLDOUT_ERROR_BP},
        "dispersion": {"factor": mnist.DISPERSION,
                       "slack_ms": 2.0},  # judge(): "DISPERSION * median + 2.0", "median / DISPERSION - 2.0"
        "timing": {"call_slack_ms": mnist.CALL_SLACK_MS, "call_slack_fraction": mnist.CALL_SLACK_FRACTION,
                   "call_allowance_ms": 1.0,  # judge(): "c.ms > c.parent_ms + 1.0"
                   "group_slack_ms": mnist.GROUP_SLACK_MS, "group_slack_fraction": mnist.GROUP_SLACK_FRACTION,
                   "floor_slack_ms": mnist.FLOOR_SLACK_MS, "floor_slack_fraction": mnist.FLOOR_SLACK_FRACTION,
                   "calibration_calls": mnist.CALIBRATION_CALLS,
                   "calibration_discard": mnist.CALIBRATION_DISCARD,
                   "l2_flush_bytes": mnist.L2_FLUSH_BYTES},
        "limits": {"max_call_ms": mnist.MAX_CALL_MS, "warmup_max_call_ms": mnist.WARMUP_MAX_CALL_MS,
                   "later_warmup_max_call_ms": mnist.LATER_WARMUP_MAX_CALL_MS,
                   "timed_call_grace_s": 5,  # timed_call(): "MAX_CALL_MS / 1e3 + 5"
                   "null_call_s": 60,  # calibrate() and control(): "worker.call(d, 60, null=True)"
                   "run_max_s": mnist.RUN_MAX_S, "max_source_bytes": mnist.MAX_SOURCE_BYTES,
                   "worker_start_s": mnist.WORKER_START_S, "import_s": mnist.IMPORT_S,
                   "stage_s": mnist.STAGE_S, "max_header": mnist.MAX_HEADER,
                   "max_reply_bytes": 1 << 20,  # Worker.request(): "max_reply=1 << 20"
                   "worker_log_bytes": 20000},  # Worker.close(): "self.log.read()[-20000:]"
        "energy": {"energy_window_s": mnist.ENERGY_WINDOW_S, "energy_min_calls": mnist.ENERGY_MIN_CALLS,
                   "energy_draws": mnist.ENERGY_DRAWS, "control_window_s": mnist.CONTROL_WINDOW_S,
                   "settle_s": mnist.SETTLE_S, "idle_s": mnist.IDLE_S,
                   "idle_sample_s": 0.25,  # measure_energy(): "min(0.25, end - time.perf_counter())"
                   "reference_s": mnist.REFERENCE_S,
                   "reference_grace_s": 120,  # reference(): "timeout_s=REFERENCE_S + 120"
                   "reference_dim": mnist.REFERENCE_DIM,
                   "reference_bands": [{"prefix": prefix, "j_per_tflop": list(joules),
                                        "tflops_per_s": list(tflops)}
                                       for prefix, (joules, tflops) in mnist.REFERENCE_BANDS.items()]},
        "datasets": {"mnist": mnist.DATASETS[0], "foreign": list(mnist.FOREIGN)},
        "review_flags": {"blob_bytes": mnist.BLOB_BYTES, "blob_entropy": mnist.BLOB_ENTROPY,
                         "hex_fraction": mnist.HEX_FRACTION, "numeric_literals": mnist.NUMERIC_LITERALS,
                         "near_limit_fraction": 0.75},  # review_flags(): "0.75 * MAX_SOURCE_BYTES"
    }


def same_json(a, b):
    """Equal as JSON values: 3 and 3.0 are one number, as in canonical JSON."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return a == b


def check_rule_set(probe, mnist):
    out = subprocess.run([probe, RULE_SET, "--rules"], capture_output=True, text=True,
                         check=True).stdout
    embedded = json.loads(out)["document"]
    expected = expected_rule_set(mnist)
    if not same_json(embedded, expected):
        for group in sorted(set(embedded) | set(expected)):
            if not same_json(embedded.get(group), expected.get(group)):
                print(f"rule set field {group!r}: ratchet has {json.dumps(embedded.get(group))}, "
                      f"the seed has {json.dumps(expected.get(group))}")
        return False
    return True


# ---------------------------------------------------------------------------------------------
# Cases


def call(dataset, ms, parent_ms, correct, total=10000, overhead_ms=1.0):
    return {"dataset": dataset, "ms": ms, "parent_ms": parent_ms, "correct": correct, "total": total,
            "overhead_ms": overhead_ms}


def honest(dataset, ms, correct, overhead_ms=1.0, unexplained=0.25, total=10000):
    return call(dataset, ms, overhead_ms + ms + unexplained, correct, total, overhead_ms)


def past(x):
    return math.nextafter(x, math.inf)


def before(x):
    return math.nextafter(x, -math.inf)


def spread(total_correct, count, rng, total=10000):
    """`count` per-call counts summing to `total_correct`, each within 0..total."""
    base = [total_correct // count] * count
    for i in range(total_correct - sum(base)):
        base[i % count] += 1
    for _ in range(count):  # move a little between calls, keeping the sum
        i, j = rng.randrange(count), rng.randrange(count)
        step = min(rng.randrange(0, 40), base[i], total - base[j])
        base[i] -= step
        base[j] += step
    return base


def random_case(rng, mnist):
    bands = [b for b, _ in mnist.DIFFICULTY.values()]
    band = rng.choice(bands) if rng.random() < 0.7 else rng.randrange(1, 10000)
    n_mnist = rng.choice([11] * 6 + [1, 2, 3, 4, 5, 6, 10, 12])
    n_hold = rng.choice([4] * 6 + [0, 1, 2, 3, 5])
    holdouts = rng.choice([["fashion"], ["kmnist"], ["fashion", "kmnist"]])
    total = 10000 if rng.random() < 0.85 else rng.randrange(1, 30000)
    base_ms = math.exp(rng.uniform(math.log(0.05), math.log(3000.0)))
    hold_ms = base_ms * math.exp(rng.gauss(0, 0.3)) if rng.random() < 0.5 else base_ms
    accuracy = 1 - band / 10000 + rng.gauss(0.002, 0.006)
    hold_accuracy = rng.choice([0.15, 0.5, 0.9, 0.1]) + rng.gauss(0, 0.01)
    calls = []
    sequence = ["mnist"] * n_mnist + [rng.choice(holdouts) for _ in range(n_hold)]
    rng.shuffle(sequence)
    for dataset in sequence:
        center = base_ms if dataset == "mnist" else hold_ms
        jitter = rng.random()
        if jitter < 0.05:
            ms = center * rng.uniform(1.8, 3.0) + rng.uniform(0, 4)  # a slow outlier
        elif jitter < 0.10:
            ms = max(0.0, center * rng.uniform(0.2, 0.6) - rng.uniform(0, 3))  # a fast one
        else:
            ms = center * math.exp(rng.gauss(0, 0.05))
        overhead = rng.uniform(0.05, 3.0)
        kind = rng.random()
        if kind < 0.70:
            unexplained = rng.uniform(-0.2, 1.0)
        elif kind < 0.85:
            unexplained = rng.uniform(1.0, 0.3 * ms + 8)  # around the group gate and the floor
        elif kind < 0.95:
            unexplained = rng.uniform(40.0, 60.0 + 0.6 * ms)  # around the call gate
        else:
            unexplained = -ms - rng.uniform(0.0, 2.0)  # the event time exceeds the parent's clock
        target = accuracy if dataset == "mnist" else hold_accuracy
        correct = min(total, max(0, round(total * (target + rng.gauss(0, 0.004)))))
        calls.append(call(dataset, ms, overhead + ms + unexplained, correct, total, overhead))
    return {"band": band, "calls": calls}


def standard(rng, n_mnist=11, n_hold=4, hold="fashion", ms=10.0, correct=9600, hold_correct=5000):
    mnist_calls = [honest("mnist", ms, correct, overhead_ms=rng.choice([0.5, 1.0, 1.25]))
                   for _ in range(n_mnist)]
    hold_calls = [honest(hold, ms, hold_correct) for _ in range(n_hold)]
    calls = mnist_calls + hold_calls
    rng.shuffle(calls)
    return calls


def edge_cases(rng, mnist):
    """Cases built to sit on a limit, or one step past it."""
    cases = []
    bands = [b for b, _ in mnist.DIFFICULTY.values()]

    # The band: exactly the required count, and one short of it.
    for band in bands + [1, 9999, 5000]:
        for n in (1, 2, 3, 11):
            need = mnist.required_correct(n * 10000, band)
            for delta in (0, -1, 1):
                total_correct = need + delta
                if not 0 <= total_correct <= n * 10000:
                    continue
                calls = [honest("mnist", 12.5, c) for c in spread(total_correct, n, rng)]
                calls += [honest("fashion", 12.5, 4000) for _ in range(4)]
                cases.append({"band": band, "calls": calls})

    # The weakest draw: exactly the floor, one below, one above.
    for band in bands:
        floor = mnist.required_correct(mnist.TEST, band + mnist.DRAW_SLACK_BP)
        for weakest in (floor - 1, floor, floor + 1):
            for n in (1, 2, 11):
                calls = [honest("mnist", 8.0, 9900) for _ in range(n - 1)]
                calls.insert(rng.randrange(n), honest("mnist", 8.0, weakest))
                cases.append({"band": band, "calls": calls + [honest("kmnist", 8.0, 3000)] * 4})

    # The hold-out at exactly 15%, one below, one above, with 1 to 5 calls and both datasets.
    for n in (1, 2, 3, 4, 5):
        need = mnist.required_correct(n * 10000, mnist.HOLDOUT_ERROR_BP)
        for total_correct in (need - 1, need, need + 1):
            for names in (["fashion"], ["kmnist"], ["fashion", "kmnist"]):
                calls = [honest("mnist", 5.0, 9700) for _ in range(11)]
                calls += [honest(names[i % len(names)], 5.0, c)
                          for i, c in enumerate(spread(total_correct, n, rng))]
                rng.shuffle(calls)
                cases.append({"band": 540, "calls": calls})

    # No hold-out calls at all.
    for n in (1, 2, 3, 11):
        cases.append({"band": 540, "calls": [honest("mnist", 3.0, 9600) for _ in range(n)]})

    # The per-call gate: unexplained time exactly at the slack, and one step past; the allowance
    # of a reported time above the parent's clock, exactly and one step past.
    for ms in (0.5, 4.0, 10.0, 37.25, 100.0, 2048.0):
        for overhead in (0.25, 1.0, 3.5):
            limit = mnist.CALL_SLACK_MS + mnist.CALL_SLACK_FRACTION * ms
            exact = overhead + ms + limit
            for parent in (exact, past(exact), exact + 1e-9, before(exact)):
                calls = standard(rng, ms=ms)
                calls[rng.randrange(len(calls))].update(parent_ms=parent, overhead_ms=overhead)
                cases.append({"band": 340, "calls": calls})
            for reported in (ms + 1.0, past(ms + 1.0), ms + 1.0 + 1e-9):
                calls = standard(rng, ms=ms)
                calls[rng.randrange(len(calls))].update(ms=reported, parent_ms=ms, overhead_ms=0.0)
                cases.append({"band": 340, "calls": calls})

    # The group gate: every kept call with the same unexplained time, at the slack and past it.
    for n in (3, 4, 5, 6, 11):
        for ms in (2.0, 10.0, 20.0, 64.5, 333.0):
            limit = mnist.GROUP_SLACK_MS + mnist.GROUP_SLACK_FRACTION * ms
            for unexplained in (limit, past(limit), limit + 1e-9, before(limit)):
                for group in ("mnist", "fashion"):
                    others = 11 if group != "mnist" else 4
                    calls = [honest(group, ms, 9700 if group == "mnist" else 5000, overhead_ms=1.0,
                                    unexplained=unexplained) for _ in range(n)]
                    other = "fashion" if group == "mnist" else "mnist"
                    calls += [honest(other, ms, 9700 if other == "mnist" else 5000) for _ in range(others)]
                    # The dropped fifth: calls with far more unexplained time, which must not count.
                    for c in calls[:max(1, n // 5)] if n >= 3 else []:
                        c["parent_ms"] += 30.0
                    rng.shuffle(calls)
                    cases.append({"band": 540, "calls": calls})

    # Ties in unexplained time with different reported times: which of two tied calls the group
    # gate drops, and so the mean it reports, depends on the sort keeping ties in call order.
    # Groups above sixteen calls too, where an unstable sort would reorder ties.
    for _ in range(60):
        n = rng.choice([3, 4, 5, 7, 11, 17, 20, 25])
        calls = []
        while len(calls) < n:
            ms, overhead, unexplained = rng.uniform(1, 50), rng.uniform(0.1, 2), rng.choice([0.5, 20.0, 20.0])
            parent = overhead + ms + unexplained
            if parent - overhead - ms == unexplained:  # an exact tie, as the judge computes it
                calls.append(call("mnist", ms, parent, 9700, 10000, overhead))
        calls += [honest("fashion", 10.0, 5000) for _ in range(4)]
        cases.append({"band": 540, "calls": calls})

    # Dispersion: the slowest exactly factor x median + slack, the fastest exactly median / factor
    # - slack, and one step past each, for odd and even group sizes in both groups.
    for n in (3, 4, 5, 6, 11):
        for median in (8.0, 10.0, 13.5, 100.0, 1000.25):
            slow = mnist.DISPERSION * median + 2.0
            fast = median / mnist.DISPERSION - 2.0
            for extreme in (slow, past(slow), before(slow), fast, before(fast), past(fast)):
                for group in ("mnist", "kmnist"):
                    # One extreme among equal times: the median stays `median` for odd and even n.
                    times = [median] * (n - 1) + [extreme]
                    rng.shuffle(times)
                    calls = [honest(group, t, 9700 if group == "mnist" else 5000) for t in times]
                    if group == "mnist":
                        calls += [honest("fashion", median, 5000) for _ in range(4)]
                    else:
                        calls += [honest("mnist", median, 9700) for _ in range(11)]
                    cases.append({"band": 540, "calls": calls})

    # Floors: the parent's clock far above the reported times, for a group and for a lone call.
    for gap in (0.2, 1.0, 5.0, 50.0, 500.0):
        for n_mnist, n_hold in ((1, 0), (1, 1), (2, 2), (3, 3), (11, 4), (5, 1)):
            calls = [call("mnist", 10.0, 1.0 + 10.0 + gap * rng.uniform(0.5, 1.5), 9700)
                     for _ in range(n_mnist)]
            calls += [call("fashion", 7.0, 1.0 + 7.0 + gap, 5000) for _ in range(n_hold)]
            rng.shuffle(calls)
            cases.append({"band": 540, "calls": calls})

    # Groups of every size from one to five on both sides, with varied times.
    for n_mnist in range(1, 6):
        for n_hold in range(0, 6):
            for _ in range(3):
                calls = [honest("mnist", rng.uniform(0.5, 40), rng.randrange(9000, 10001),
                                overhead_ms=rng.uniform(0.1, 2), unexplained=rng.uniform(-1, 12))
                         for _ in range(n_mnist)]
                calls += [honest(rng.choice(["fashion", "kmnist"]), rng.uniform(0.5, 40),
                                 rng.randrange(1000, 3000), unexplained=rng.uniform(-1, 12))
                          for _ in range(n_hold)]
                rng.shuffle(calls)
                cases.append({"band": rng.choice(bands), "calls": calls})

    # Negative measurements (a parent's clock below the calibrated overhead) print as negatives.
    for _ in range(10):
        calls = standard(rng)
        calls[0].update(parent_ms=0.3, overhead_ms=1.7, ms=60.0)
        cases.append({"band": 230, "calls": calls})
    return cases


def seed_judge(mnist, case):
    calls = [mnist.Call(c["dataset"], c["ms"], c["parent_ms"], c["correct"], c["total"], c["overhead_ms"])
             for c in case["calls"]]
    return mnist.judge(calls, case["band"])


def compare(index, case, expected, got):
    """A list of differences between the seed's judgement and the probe's (empty: they agree)."""
    problems, ranked_ms, summary = expected
    if "error" in got:
        return [f"the probe refused the case: {got['error']}"]
    out = []
    messages = [p["message"] for p in got["problems"]]
    if messages != problems:
        out.append(f"messages differ:\n  seed:    {problems}\n  ratchet: {messages}")
    for problem in got["problems"]:
        if rule_of(problem["message"]) != problem["rule"]:
            out.append(f"message {problem['message']!r} is under rule {problem['rule']!r}, "
                       f"expected {rule_of(problem['message'])!r}")
    if not abs(got["ranked_ms"] - ranked_ms) <= TOLERANCE_MS:
        out.append(f"ranked_ms: seed {ranked_ms!r}, ratchet {got['ranked_ms']!r}")
    if got["summary"] != summary:
        out.append(f"summary:\n  seed:    {summary!r}\n  ratchet: {got['summary']!r}")
    if got["floored"] != summary.endswith(" (floored by the scorer's clock)"):
        out.append(f"floored: ratchet says {got['floored']}, the seed's summary says otherwise")
    return out


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    probe = argv[1]
    mnist = load_seed()
    if not check_rule_set(probe, mnist):
        print(f"judge differential: the embedded rule set {RULE_SET} differs from the seed's "
              "constants")
        return 1

    rng = random.Random(GENERATOR_SEED)
    cases = edge_cases(rng, mnist)
    n_edge = len(cases)
    cases += [random_case(rng, mnist) for _ in range(RANDOM_CASES)]
    # Without an MNIST call the seed fails (min() of nothing); ratchet must refuse the case.
    refused = [{"band": 540, "calls": []},
               {"band": 540, "calls": [honest("fashion", 5.0, 5000) for _ in range(4)]}]

    result = subprocess.run([probe, RULE_SET], input=json.dumps(cases + refused),
                            capture_output=True, text=True)
    if result.returncode != 0:
        print(f"judge_probe exited {result.returncode}: {result.stderr.strip()}")
        return 1
    answers = json.loads(result.stdout)
    if len(answers) != len(cases) + len(refused):
        print(f"judge_probe answered {len(answers)} of {len(cases) + len(refused)} cases")
        return 1

    failures, with_problems, rules_seen, identical = 0, 0, set(), 0
    for index, (case, got) in enumerate(zip(cases, answers)):
        expected = seed_judge(mnist, case)
        differences = compare(index, case, expected, got)
        if differences:
            failures += 1
            if failures <= 5:
                kind = "edge" if index < n_edge else "random"
                print(f"case {index} ({kind}) differs: " + "\n".join(differences))
                print(f"  case: {json.dumps(case)}")
            continue
        with_problems += bool(expected[0])
        rules_seen.update(p["rule"] for p in got["problems"])
        identical += got["ranked_ms"] == expected[1]
    for case, got in zip(refused, answers[len(cases):]):
        try:
            seed_judge(mnist, case)
            print(f"the seed judged a case without MNIST calls: {json.dumps(case)}")
            failures += 1
        except (ValueError, ZeroDivisionError):
            pass
        if "error" not in got:
            print(f"ratchet judged a case without MNIST calls: {json.dumps(case)}")
            failures += 1

    all_rules = {rule for _, rule in RULE_BY_PREFIX}
    if failures == 0 and rules_seen != all_rules:
        print(f"the cases never broke {sorted(all_rules - rules_seen)}: the test is too weak")
        failures += 1
    status = "agree with the seed" if failures == 0 else f"{failures} disagree with the seed"
    print(f"judge differential: {len(cases)} cases ({n_edge} edge, {len(cases) - n_edge} random; "
          f"{with_problems} with problems; ranked_ms bit-identical in {identical}) and "
          f"{len(refused)} refused cases: {status}")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
