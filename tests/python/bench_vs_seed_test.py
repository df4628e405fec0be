"""scripts/bench-vs-seed's figures from a run's calls: the per-call steps, the floor's raise and
the summary.

The benchmark itself needs a GPU box, the seed scorer and minutes; these are its sums, checked on
calls made up here.
"""

import contextlib
import importlib.util
import io
import os
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE_DIR = Path(os.environ.get("RATCHET_SOURCE_DIR", HERE.parents[1]))
SPEC = importlib.util.spec_from_file_location("bench_vs_seed",
                                              SOURCE_DIR / "scripts" / "bench-vs-seed.py")
bench = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(bench)


def ratchet_call(start_ms, loaded, warmed, replying_step=-300.0):
    """A call of calls.json as ratchet writes it: steps in ms since the call began, and the
    worker's hello instants on the monotonic clock (ns)."""
    return {"dataset": "mnist", "ms": 1.0, "parent_ms": 2.0, "overhead_ms": 0.9, "correct": 9,
            "total": 10,
            "phases": {"steps": {"worker_replying": replying_step, "loaded": loaded,
                                 "warmed": warmed}},
            "worker": {"clock_ns": {"replying": (start_ms + replying_step) * 1e6}}}


def run(calls, wall_s=9.0, ranked=14.0):
    return {"calls": calls, "wall_s": wall_s, "ranked_ms": ranked, "outcome": "qualified",
            "energy_mj_per_call": None}


class CallSteps(unittest.TestCase):
    def test_the_interval_is_a_mean_loading_and_warm_up_are_medians_over_every_call(self):
        # Calls start 0, 500, 1100, 2100 ms: intervals 500, 600, 1000 (median 600, mean 700).
        # The first call's steps differ from the rest, so that leaving it out shows.
        calls = [ratchet_call(0, 400, 1400), ratchet_call(500, 60, 380),
                 ratchet_call(1100, 140, 440), ratchet_call(2100, 55, 355)]
        steps = bench.call_steps(calls)
        self.assertAlmostEqual(steps["call_ms"], 700.0, places=6)
        self.assertAlmostEqual(steps["loaded_at_ms"], 100.0, places=6)  # 55, 60, 140, 400
        self.assertAlmostEqual(steps["warmup_ms"], 310.0, places=6)  # 300, 300, 320, 1000

    def test_the_worker_clock_and_the_step_give_the_start_whatever_the_hello_step(self):
        # A worker that answered its hello long before its call (a worker started ahead) or
        # during it: the start is the same.
        calls = [ratchet_call(0, 50, 350, replying_step=-900.0),
                 ratchet_call(480, 50, 350, replying_step=25.0)]
        self.assertAlmostEqual(bench.call_steps(calls)["call_ms"], 480.0, places=6)

    def test_paired_calls_alternate_short_and_long_intervals_and_the_mean_takes_both(self):
        # A call prepared during the one before starts 100 ms after it: 0, 100, 600, 700, 1200.
        calls = [ratchet_call(s, 50, 350) for s in (0, 100, 600, 700, 1200)]
        self.assertAlmostEqual(bench.call_steps(calls)["call_ms"], 300.0, places=6)

    def test_calls_without_steps_give_none(self):
        seed_calls = [{"dataset": "mnist", "ms": 1.0, "parent_ms": 4.0, "overhead_ms": 3.0,
                       "correct": 9, "total": 10}] * 3
        self.assertIsNone(bench.call_steps(seed_calls))
        self.assertIsNone(bench.call_steps([]))
        one_call = [ratchet_call(0, 50, 350)]
        self.assertIsNone(bench.call_steps(one_call), "no interval in a run of one call")
        partial = [ratchet_call(0, 50, 350), seed_calls[0], ratchet_call(900, 50, 350)]
        self.assertIsNone(bench.call_steps(partial), "an interval across a call without steps")


class Summary(unittest.TestCase):
    def test_the_summary_gives_the_median_of_each_runs_median(self):
        # Per run: intervals 400, 500, 1200; loaded 50, 70, 300; warm-ups 300, 300, 900.
        runs = [run([ratchet_call(0, 50, 350), ratchet_call(400, 50, 350)]),
                run([ratchet_call(0, 70, 370), ratchet_call(500, 70, 370)]),
                run([ratchet_call(0, 300, 1200), ratchet_call(1200, 300, 1200)])]
        summary = bench.summarize(runs)
        self.assertAlmostEqual(summary["call_ms_median"], 500.0, places=6)
        self.assertAlmostEqual(summary["loaded_at_ms_median"], 70.0, places=6)
        self.assertAlmostEqual(summary["warmup_ms_median"], 300.0, places=6)

    def test_the_seeds_side_has_none(self):
        seed_calls = [{"dataset": "mnist", "ms": 1.0, "parent_ms": 4.0, "overhead_ms": 3.0,
                       "correct": 9, "total": 10}] * 15
        summary = bench.summarize([run(seed_calls), run(seed_calls)])
        self.assertIsNone(summary["call_ms_median"])
        self.assertIsNone(summary["warmup_ms_median"])
        self.assertEqual(summary["calls"], 30)


class CallSpread(unittest.TestCase):
    def test_each_runs_sample_sd_over_its_mnist_calls_and_their_median(self):
        def calls(values, holdout=100.0):
            return ([{"dataset": "mnist", "ms": v, "parent_ms": v + 1, "overhead_ms": 1.0,
                      "correct": 9, "total": 10} for v in values]
                    + [{"dataset": "fashion", "ms": holdout, "parent_ms": holdout + 1,
                        "overhead_ms": 1.0, "correct": 9, "total": 10}])
        # Sample sds: 1.0 (10, 11, 12), 2.0 (10, 12, 14), 4.0 (10, 14, 18): median 2.0 (mean
        # 2.33); the hold-out's call is left out.
        runs = [run(calls([10, 11, 12])), run(calls([10, 12, 14])), run(calls([10, 14, 18]))]
        summary = bench.summarize(runs)
        self.assertEqual([round(x, 9) for x in summary["mnist_call_ms_sd"]], [1.0, 2.0, 4.0])
        self.assertAlmostEqual(summary["mnist_call_ms_sd_median"], 2.0, places=9)

    def test_a_run_with_one_mnist_call_has_none_and_is_left_out_of_the_median(self):
        one = {"dataset": "mnist", "ms": 5.0, "parent_ms": 6.0, "overhead_ms": 1.0,
               "correct": 9, "total": 10}
        two = [dict(one, ms=5.0), dict(one, ms=7.0)]
        summary = bench.summarize([run([one]), run(two)])
        self.assertIsNone(summary["mnist_call_ms_sd"][0])
        self.assertAlmostEqual(summary["mnist_call_ms_sd_median"], 2 ** 0.5, places=9)
        self.assertIsNone(bench.summarize([run([one])])["mnist_call_ms_sd_median"])


class Spread(unittest.TestCase):
    def test_the_spread_leaves_out_the_offset_every_call_shares(self):
        # Unexplained 0.10, 0.12, ..., 0.28 ms: median 0.19, distances 0.09, 0.07, ..., 0.09.
        calls = [{"dataset": "mnist", "ms": 10.0, "parent_ms": 11.0 + 0.1 + 0.02 * i,
                  "overhead_ms": 1.0, "correct": 9, "total": 10} for i in range(10)]
        summary = bench.summarize([run(calls)])
        self.assertAlmostEqual(summary["unexplained_ms_median"], 0.19, places=9)
        self.assertAlmostEqual(summary["unexplained_ms_abs_p90"], 0.262, places=9)
        # Distances sorted: 0.01, 0.01, 0.03, 0.03, 0.05, 0.05, 0.07, 0.07, 0.09, 0.09.
        self.assertAlmostEqual(summary["unexplained_ms_spread_p90"], 0.09, places=9)

    def test_a_pure_offset_has_no_spread_and_no_calls_give_none(self):
        calls = [{"dataset": "mnist", "ms": 5.0, "parent_ms": 6.3, "overhead_ms": 1.0,
                  "correct": 9, "total": 10}] * 4
        summary = bench.summarize([run(calls)])
        self.assertAlmostEqual(summary["unexplained_ms_abs_p90"], 0.3, places=9)
        self.assertAlmostEqual(summary["unexplained_ms_spread_p90"], 0.0, places=9)
        self.assertIsNone(bench.spread_p90([]))


def timed(dataset, ms):
    return {"dataset": dataset, "ms": ms, "parent_ms": ms + 1.0, "overhead_ms": 0.8,
            "correct": 9, "total": 10}


class FloorRaise(unittest.TestCase):
    def test_the_raise_is_the_ranked_time_above_the_slower_groups_own_mean(self):
        # MNIST mean 14.0, hold-out mean 14.2: a ranked time of 14.25 was raised by 0.05.
        calls = [timed("mnist", 13.9), timed("mnist", 14.1), timed("fashion", 14.2),
                 timed("fashion", 14.2)]
        self.assertAlmostEqual(bench.floor_raise_ms(run(calls, ranked=14.25)), 0.05, places=9)

    def test_an_unfloored_run_and_a_disqualified_one(self):
        calls = [timed("mnist", 14.0), timed("fashion", 13.0)]
        self.assertEqual(bench.floor_raise_ms(run(calls, ranked=14.0)), 0.0)
        self.assertIsNone(bench.floor_raise_ms(run(calls, ranked=None)))

    def test_the_summary_keeps_each_runs_raise_in_order(self):
        calls = [timed("mnist", 10.0), timed("fashion", 9.0)]
        summary = bench.summarize([run(calls, ranked=10.2), run(calls, ranked=None),
                                   run(calls, ranked=10.0)])
        self.assertEqual(len(summary["floor_raise_ms"]), 3)
        self.assertAlmostEqual(summary["floor_raise_ms"][0], 0.2, places=9)
        self.assertIsNone(summary["floor_raise_ms"][1])
        self.assertEqual(summary["floor_raise_ms"][2], 0.0)


def windowed_call(ms, timed, calibration):
    """A call with its window's steps: `timed` and `calibration` give write, to_worker, inputs,
    method, labels and to_parent in that order."""
    steps = ("write", "to_worker", "inputs", "method", "labels", "to_parent")
    return {"dataset": "mnist", "ms": ms, "parent_ms": 0.0, "overhead_ms": 0.0, "correct": 9,
            "total": 10, "phases": {"timed": dict(zip(steps, timed)),
                                    "calibration": dict(zip(steps, calibration))}}


class UnexplainedByStep(unittest.TestCase):
    def test_each_step_is_the_median_of_timed_less_calibration_and_the_method_less_its_time(self):
        cal = (0.10, 0.05, 0.20, 0.04, 0.12, 0.04)
        calls = [windowed_call(14.0, (0.11, 0.05, 0.20, 14.03, 0.20, 0.09), cal),
                 windowed_call(13.0, (0.10, 0.06, 0.45, 13.02, 0.19, 0.10), cal),
                 windowed_call(15.0, (0.08, 0.05, 0.21, 15.05, 0.22, 0.08), cal)]
        by_step = bench.unexplained_by_step(calls)
        expected = {"write": 0.0, "to_worker": 0.0, "inputs": 0.01, "method": -0.01,
                    "labels": 0.08, "to_parent": 0.05}
        self.assertEqual(set(by_step), set(expected))
        for step, value in expected.items():
            self.assertAlmostEqual(by_step[step], value, places=9, msg=step)

    def test_calls_without_window_steps_are_left_out_and_the_seeds_give_none(self):
        cal = (0.1, 0.1, 0.1, 0.1, 0.1, 0.1)
        seed_call = {"dataset": "mnist", "ms": 1.0, "parent_ms": 4.0, "overhead_ms": 3.0,
                     "correct": 9, "total": 10}
        partial = windowed_call(1.0, (0.2,) * 6, cal)
        del partial["phases"]["timed"]["labels"]  # a window whose instants were out of order
        self.assertIsNone(bench.unexplained_by_step([seed_call, seed_call]))
        self.assertIsNone(bench.unexplained_by_step([]))
        whole = windowed_call(1.0, (0.3,) * 6, cal)
        by_step = bench.unexplained_by_step([seed_call, partial, whole])
        self.assertAlmostEqual(by_step["labels"], 0.2, places=9)
        self.assertAlmostEqual(by_step["method"], 0.3 - 0.1 - 1.0, places=9)

    def test_the_summary_carries_it(self):
        cal = (0.1,) * 6
        summary = bench.summarize([run([windowed_call(1.0, (0.15,) * 6, cal)])])
        self.assertAlmostEqual(summary["unexplained_by_step_ms"]["to_parent"], 0.05, places=9)
        seed = bench.summarize([run([{"dataset": "mnist", "ms": 1.0, "parent_ms": 4.0,
                                      "overhead_ms": 3.0, "correct": 9, "total": 10}])])
        self.assertIsNone(seed["unexplained_by_step_ms"])


class RulesOption(unittest.TestCase):
    """--rules reaches every `ratchet score` of the bench (the seed keeps its own constants)."""

    def bench_for(self, argv):
        args = bench.parse_args(["--python", "/usr/bin/python3", *argv])
        args.out = Path("/nonexistent/bench")
        args.datasets, args.seed_pools, args.notes, args.no_energy_flag = {}, {}, [], True
        return bench.Bench(args, print)

    def test_a_rule_set_given_is_passed_to_both_of_ratchets_sides(self):
        runner = self.bench_for(["--rules", "mnist-a100/1.2.0"])
        for side in ("native", "python"):
            argv = runner.ratchet_argv(side, Path("/nonexistent/evidence"))
            self.assertEqual(argv[1], "score")
            self.assertEqual(argv[argv.index("--rules") + 1], "mnist-a100/1.2.0")

    def test_without_it_ratchet_scores_under_its_default(self):
        runner = self.bench_for([])
        for side in ("native", "python"):
            self.assertNotIn("--rules", runner.ratchet_argv(side, Path("/nonexistent/evidence")))

    def test_a_second_rule_set_adds_a_side_after_each_of_ratchets(self):
        runner = self.bench_for(["--rules", "a.json", "--rules-b", "mnist-a100/1.4.0"])
        self.assertEqual(runner.args.sides, ["seed", "native", "native-b", "python", "python-b"])
        for side, rules in (("native", "a.json"), ("native-b", "mnist-a100/1.4.0"),
                            ("python", "a.json"), ("python-b", "mnist-a100/1.4.0")):
            argv = runner.ratchet_argv(side, Path("/nonexistent/evidence"))
            self.assertEqual(argv[argv.index("--rules") + 1], rules, side)
            self.assertEqual(argv.count("--rules"), 1, side)
            target = argv[2]
            self.assertEqual(target.endswith(".cpp"), side.startswith("native"), side)
        self.assertEqual(bench.side_title("python-b"), "ratchet Python (.py), b")
        self.assertEqual(runner.ratchet_env("python-b"), runner.ratchet_env("python"))
        self.assertEqual(runner.ratchet_argv("native-b", Path("/e"))[0],
                         runner.ratchet_argv("native", Path("/e"))[0])  # the same build
        # Without --rules the a sides take ratchet's default, the b sides still the second.
        runner = self.bench_for(["--sides", "native", "--rules-b", "x.json"])
        self.assertEqual(runner.args.sides, ["native", "native-b"])
        self.assertNotIn("--rules", runner.ratchet_argv("native", Path("/nonexistent/e")))
        self.assertIn("x.json", runner.ratchet_argv("native-b", Path("/nonexistent/e")))

    def test_the_b_side_goes_first_in_every_even_round(self):
        sides = ["seed", "native", "native-b", "python", "python-b"]
        self.assertEqual(bench.round_order(sides, 1), sides)
        self.assertEqual(bench.round_order(sides, 2),
                         ["seed", "native-b", "native", "python-b", "python"])
        self.assertEqual(bench.round_order(sides, 3), sides)
        self.assertEqual(bench.round_order(["seed", "native", "python"], 2),
                         ["seed", "native", "python"])

    def test_a_second_worker_adds_a_python_side_run_with_that_folders_worker(self):
        runner = self.bench_for(["--worker-dir-b", "/nonexistent/old-worker"])
        self.assertEqual(runner.args.sides, ["seed", "native", "python", "python-b"])
        self.assertEqual(runner.ratchet_env("python-b")["RATCHET_WORKER_DIR"],
                         "/nonexistent/old-worker")
        for side in ("native", "python"):
            self.assertNotIn("RATCHET_WORKER_DIR", runner.ratchet_env(side), side)
        self.assertEqual(runner.ratchet_argv("python-b", Path("/e")),
                         runner.ratchet_argv("python", Path("/e")))
        # With a second rule set too, every b side takes both.
        runner = self.bench_for(["--sides", "native,python", "--rules-b", "x.json",
                                 "--worker-dir-b", "/nonexistent/w"])
        self.assertEqual(runner.args.sides, ["native", "native-b", "python", "python-b"])
        for side in ("native-b", "python-b"):
            self.assertIn("x.json", runner.ratchet_argv(side, Path("/e")), side)
            self.assertEqual(runner.ratchet_env(side)["RATCHET_WORKER_DIR"], "/nonexistent/w")

    def test_a_second_build_adds_a_side_after_each_of_ratchets_run_with_its_ratchet(self):
        runner = self.bench_for(["--build", "/nonexistent/new", "--build-b", "/nonexistent/old"])
        self.assertEqual(runner.args.sides, ["seed", "native", "native-b", "python", "python-b"])
        for side in runner.args.sides[1:]:
            argv = runner.ratchet_argv(side, Path("/e"))
            build = "/nonexistent/old" if side.endswith("-b") else "/nonexistent/new"
            self.assertEqual(argv[0], build + "/ratchet", side)
            self.assertEqual(argv[1:], runner.ratchet_argv(side.removesuffix("-b"), Path("/e"))[1:])
            # Each build compiles the twin into its own cache; the worker.py is the one each
            # ratchet finds beside its build.
            env = runner.ratchet_env(side)
            self.assertEqual(env["RATCHET_CACHE"],
                             "/nonexistent/bench/cache" + ("-b" if side.endswith("-b") else ""))
            self.assertEqual(env.get("RATCHET_WORKER_DIR"), os.environ.get("RATCHET_WORKER_DIR"))
        # Each build's ratchet is asked for --no-energy as it takes it.
        runner.args.no_energy_flag_b = False
        self.assertIn("--no-energy", runner.ratchet_argv("native", Path("/e")))
        self.assertNotIn("--no-energy", runner.ratchet_argv("native-b", Path("/e")))
        # With a second worker too, the b side's Python worker comes from there.
        runner = self.bench_for(["--sides", "python", "--build-b", "/nonexistent/old",
                                 "--worker-dir-b", "/nonexistent/w"])
        self.assertEqual(runner.args.sides, ["python", "python-b"])
        self.assertEqual(runner.ratchet_env("python-b")["RATCHET_WORKER_DIR"], "/nonexistent/w")

    def test_a_second_build_needs_a_side_of_ratchets(self):
        self.assertIn("--build-b needs a side of ratchet's",
                      self.usage_error("--sides", "seed", "--build-b", "/tmp"))
        self.assertIn("--worker-dir-b needs the side python",
                      self.usage_error("--sides", "native", "--build-b", "/tmp",
                                       "--worker-dir-b", "/tmp"))

    def usage_error(self, *argv):
        """What parse_args says on stderr when it refuses `argv` (it must refuse it)."""
        with self.assertRaises(SystemExit):
            with contextlib.redirect_stderr(io.StringIO()) as err:
                bench.parse_args(["--python", "/usr/bin/python3", *argv])
        return err.getvalue()

    def test_a_second_worker_needs_the_python_side(self):
        self.assertIn("--worker-dir-b needs the side python",
                      self.usage_error("--sides", "seed,native", "--worker-dir-b", "/tmp"))

    def test_a_second_rule_set_needs_a_side_of_ratchets(self):
        self.assertIn("--rules-b needs a side of ratchet's",
                      self.usage_error("--sides", "seed", "--rules-b", "x.json"))


class WindowStepMedians(unittest.TestCase):
    def test_each_steps_own_median_in_the_timed_call_and_the_calibration(self):
        calls = [windowed_call(14.0, (0.11, 0.05, 0.20, 14.03, 0.20, 0.09), (0.1,) * 6),
                 windowed_call(13.0, (0.13, 0.07, 0.40, 13.02, 0.30, 0.10), (0.2,) * 6),
                 windowed_call(13.5, (0.12, 0.06, 0.30, 13.52, 0.25, 0.11), (0.3,) * 6)]
        steps = bench.window_step_medians(calls)
        self.assertAlmostEqual(steps["timed"]["labels"], 0.25, places=9)
        self.assertAlmostEqual(steps["timed"]["method"], 13.52, places=9)
        self.assertAlmostEqual(steps["calibration"]["to_parent"], 0.2, places=9)
        self.assertEqual(bench.summarize([run(calls)])["window_steps_ms"], steps)

    def test_calls_without_both_windows_are_left_out_and_none_gives_none(self):
        partial = windowed_call(1.0, (0.1,) * 6, (0.1,) * 6)
        del partial["phases"]["calibration"]["labels"]
        self.assertIsNone(bench.window_step_medians([partial]))
        self.assertIsNone(bench.window_step_medians([{"dataset": "mnist", "ms": 1.0}]))
        whole = windowed_call(1.0, (0.4,) * 6, (0.2,) * 6)
        self.assertEqual(bench.window_step_medians([partial, whole])["timed"]["write"], 0.4)


if __name__ == "__main__":
    unittest.main()
