"""check_source.py as the parent uses it: the command line, the red-team corpus, the examples.

The decisions of source_cases.py are pinned here by hand; check_source_diff.py compares every
message with the reference scorer's when it is present.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE_DIR = Path(os.environ.get("RATCHET_SOURCE_DIR", HERE.parents[1]))
CHECKER = SOURCE_DIR / "runner" / "worker" / "check_source.py"
SUBMISSIONS = SOURCE_DIR / "tests" / "submissions"
EXAMPLES = SOURCE_DIR / "baselines" / "submissions"
sys.path.insert(0, str(CHECKER.parent))
sys.path.insert(0, str(HERE))
import check_source  # noqa: E402
from source_cases import CASES  # noqa: E402

ALLOW_LIST = ("['cache', 'cached_property', 'classmethod', 'dataclass', 'dataclasses.dataclass', "
              "'functools.cache', 'functools.cached_property', 'functools.lru_cache', 'lru_cache', "
              "'property', 'staticmethod', 'torch.compile', 'torch.inference_mode', "
              "'torch.jit.script', 'torch.no_grad', 'triton.autotune', 'triton.heuristics', "
              "'triton.jit']")
RULES = ("At import a method file may only import, define functions and classes, assign "
         "constants and set torch flags")
MOVE = ("; move the work inside your function, and put a scoring call such as "
        "print(mnist.score(...)) under `if __name__ == \"__main__\":`")


def run_checker(*args):
    run = subprocess.run([sys.executable, str(CHECKER), *map(str, args)], capture_output=True,
                         text=True)
    return run.returncode, run.stdout, run.stderr


def expected_outcome(path):
    first = path.read_text(errors="replace").split("\n", 1)[0]
    match = re.match(r"# red-team: .*; expected: (.+)$", first)
    if not match:
        raise AssertionError(f"{path.name}: the first line must say `# red-team: ...; expected: ...`")
    return match.group(1)


class CasesTest(unittest.TestCase):
    def test_each_case_gets_the_pinned_decision(self):
        for name, text, function, passes in CASES:
            with self.subTest(name):
                answer = check_source.verdict(text.encode(), function, "case.py")
                self.assertEqual(answer["ok"], passes, answer["error"])
                self.assertEqual(answer["error"] is None, passes)

    def test_messages_users_compare_with_the_reference(self):
        def error(text, function="method", **kwargs):
            return check_source.verdict(text.encode(), function, "m.py", **kwargs)["error"]

        method = "def method(a, b, c):\n    return 0\n"
        self.assertEqual(error("print(1)\n" + method),
                         f"m.py line 1: a call to print at module level. {RULES}{MOVE}")
        self.assertEqual(error("X = 1\nX += 1\n" + method),
                         f"m.py line 2: an augmented assignment at module level. {RULES}")
        self.assertEqual(error("class B:\n    def __init_subclass__(cls):\n        pass\n" + method),
                         "m.py line 1: __init_subclass__, which runs when the class is "
                         f"subscripted or subclassed, at module level. {RULES}")
        self.assertEqual(error("@deco\n" + method),
                         f"m.py line 1: the decorator deco is not on the allow-list {ALLOW_LIST}")
        self.assertEqual(error("import numpy as torch\n" + method),
                         "m.py line 1: an import that rebinds torch, which the scorer's allow-list "
                         f"trusts at module level. {RULES}")
        self.assertEqual(error("class B:\n    X = f()\n" + method),
                         "m.py line 2: an assignment to X that runs code or rebinds a protected "
                         f"name at class level. {RULES}")
        self.assertEqual(error(method, "predict"), "m.py does not define predict() at the top level")
        self.assertEqual(error("def method(:\n"),
                         "m.py does not parse: invalid syntax (<unknown>, line 1)")
        self.assertEqual(error(method + "#" * 30 + "\n", max_bytes=40),
                         f"m.py is {len(method) + 31} bytes; the limit is 40, so a method cannot "
                         "carry a trained model or the dataset with it")

    def test_review_flags(self):
        flags = {name: check_source.verdict(text.encode(), function, "m.py")["flags"]
                 for name, text, function, _ in CASES}
        self.assertEqual(flags["plain method"], [])
        self.assertEqual(flags["high-entropy blob"],
                         ["embedded data? 1 high-entropy literal(s), 700 characters"])
        self.assertEqual(flags["hex blob"], ["embedded data? 1 high-entropy literal(s), 600 characters"])
        self.assertEqual(flags["prose string"], [])
        self.assertEqual(flags["numeric literals"], ["embedded weights? 451 numeric literals"])
        self.assertEqual(flags["decoders and reach"],
                         ["decodes data: imports base64, zlib",
                          "reaches outside the process: imports ctypes, socket, urllib"])
        self.assertEqual(flags["dynamic calls"],
                         ["dynamic code or files: calls eval, getattr, open"])
        size = len(dict((n, t) for n, t, _, _ in CASES)["near the limit"].encode())
        self.assertEqual(flags["near the limit"],
                         [f"{size:,} bytes, close to the 20,480-byte limit"])

    def test_nesting_too_deep_is_rejected_not_a_crash(self):
        deep = "X = " + "-" * 5000 + "1\ndef method(a, b, c):\n    return 0\n"
        answer = check_source.verdict(deep.encode(), "method", "m.py")
        self.assertFalse(answer["ok"])


class CorpusTest(unittest.TestCase):
    def test_red_team_files_say_what_they_expect(self):
        files = sorted(SUBMISSIONS.glob("*.py"))
        self.assertGreaterEqual(len(files), 15)
        for path in files:
            with self.subTest(path.name):
                outcome = expected_outcome(path)
                answer = check_source.verdict(path.read_bytes(), "method", path.name)
                if outcome == "source":
                    self.assertFalse(answer["ok"], f"{path.name} should break a source rule")
                    self.assertTrue(answer["error"].startswith(path.name), answer["error"])
                else:
                    self.assertTrue(answer["ok"], f"{path.name}: {answer['error']}")

    def test_only_the_oversized_file_is_over_the_limit(self):
        for path in SUBMISSIONS.glob("*.py"):
            with self.subTest(path.name):
                size = path.stat().st_size
                self.assertEqual(size > 20480, path.name == "oversized.py", size)

    def test_examples_pass_and_fit(self):
        examples = sorted(EXAMPLES.glob("*.py")) + sorted(EXAMPLES.glob("*.cpp"))
        names = {path.name for path in examples}
        self.assertTrue({"ncm.py", "ncm.cpp", "kernel_ridge.py", "kernel_ridge.cpp"} <= names, names)
        for path in examples:
            with self.subTest(path.name):
                self.assertLessEqual(path.stat().st_size, 20480)
                if path.suffix == ".py":
                    answer = check_source.verdict(path.read_bytes(), "method", path.name)
                    self.assertEqual((answer["ok"], answer["error"]), (True, None))
                else:
                    text = path.read_text()
                    self.assertIn("#include <ratchet/method.h>", text)
                    self.assertRegex(text, r"RATCHET_METHOD\(method\)")


class CommandLineTest(unittest.TestCase):
    def test_a_passing_file(self):
        code, out, err = run_checker(EXAMPLES / "ncm.py", "method")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out),
                         {"ok": True, "error": None, "function": "method", "flags": []})
        self.assertEqual(out.count("\n"), 1)

    def test_a_failing_file_still_exits_zero(self):
        code, out, err = run_checker(SUBMISSIONS / "module_call.py", "method")
        self.assertEqual(code, 0, err)
        answer = json.loads(out)
        self.assertFalse(answer["ok"])
        self.assertEqual(answer["error"],
                         f"module_call.py line 4: a call to print at module level. {RULES}{MOVE}")

    def test_flags_come_with_the_answer(self):
        code, out, _ = run_checker(SUBMISSIONS / "segfault.py", "method")
        self.assertEqual(json.loads(out)["flags"], ["reaches outside the process: imports ctypes"])

    def test_an_empty_function_picks_the_single_top_level_one(self):
        code, out, _ = run_checker(EXAMPLES / "ncm.py", "")
        self.assertEqual((code, json.loads(out)["function"]), (0, "method"))

    def test_an_empty_function_with_several_candidates_is_a_usage_error(self):
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
            handle.write("def a():\n    pass\n\n\ndef b():\n    pass\n")
        self.addCleanup(os.unlink, handle.name)
        code, out, err = run_checker(handle.name, "")
        self.assertEqual((code, out), (2, ""))
        self.assertIn(f"{handle.name} defines 2 top-level functions; name one as "
                      f"{handle.name}:function", err)

    def test_an_empty_function_in_a_file_that_does_not_parse(self):
        code, out, _ = run_checker(SUBMISSIONS / "syntax_error.py", "")
        self.assertEqual(code, 0)
        self.assertIn("syntax_error.py does not parse", json.loads(out)["error"])

    def test_an_unreadable_file_is_a_usage_error(self):
        code, out, err = run_checker(SUBMISSIONS / "no_such_file.py", "method")
        self.assertEqual((code, out), (2, ""))
        self.assertIn("cannot read", err)

    def test_max_bytes_and_name(self):
        code, out, _ = run_checker(EXAMPLES / "ncm.py", "method", "--max-bytes", "100",
                                   "--name", "record.py")
        answer = json.loads(out)
        self.assertEqual(code, 0)
        self.assertTrue(answer["error"].startswith("record.py is "), answer["error"])
        self.assertTrue(answer["error"].endswith("the limit is 100, so a method cannot carry a "
                                                 "trained model or the dataset with it"))

    def test_review_flag_thresholds_from_the_rule_set(self):
        code, out, _ = run_checker(EXAMPLES / "ncm.py", "method", "--review-flags",
                                   '{"numeric_literals": 2}')
        self.assertEqual(code, 0)
        self.assertRegex(json.loads(out)["flags"][0], r"^embedded weights\? \d+ numeric literals$")
        code, _, err = run_checker(EXAMPLES / "ncm.py", "method", "--review-flags", '{"x": 1}')
        self.assertEqual(code, 2)

    def test_bad_usage(self):
        self.assertEqual(run_checker()[0], 2)
        self.assertEqual(run_checker(EXAMPLES / "ncm.py", "method", "--max-bytes", "0")[0], 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
