"""check_source.py as the parent uses it: the command line, the red-team corpus, the examples.

The decisions of source_cases.py are pinned here by hand; check_source_diff.py compares every
message with the reference scorer's when it is present.
"""

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
SOURCE_DIR = Path(os.environ.get("RATCHET_SOURCE_DIR", HERE.parents[1]))
CHECKER = SOURCE_DIR / "runner" / "worker" / "check_source.py"
SUBMISSIONS = SOURCE_DIR / "tests" / "submissions"
EXAMPLES = SOURCE_DIR / "baselines" / "submissions"
sys.path.insert(0, str(CHECKER.parent))
sys.path.insert(0, str(HERE))
import check_source  # noqa: E402
from source_cases import CASES, STRICTER_CASES  # noqa: E402

ALLOW_LIST = ("['cache', 'cached_property', 'classmethod', 'dataclass', 'dataclasses.dataclass', "
              "'functools.cache', 'functools.cached_property', 'functools.lru_cache', 'lru_cache', "
              "'property', 'staticmethod', 'torch.compile', 'torch.inference_mode', "
              "'torch.jit.script', 'torch.no_grad', 'triton.autotune', 'triton.heuristics', "
              "'triton.jit']")
RULES = ("At import a method file may only import, define functions and classes, assign "
         "constants and set torch flags")
MOVE = ("; move the work inside your function, and put a scoring call such as "
        "print(mnist.score(...)) under `if __name__ == \"__main__\":`")
INERT = ("Nothing a method file defines may run, or be handed to code that could run it, while the "
         "file loads")
METHOD = "def method(a, b, c):\n    return 0\n"


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

    def test_the_answer_is_valid_utf8_whatever_a_message_quotes(self):
        answer = check_source.verdict(b"X = 1\n", "m\udcff", "m.py")
        self.assertFalse(answer["ok"])
        json.dumps(answer, ensure_ascii=False).encode("utf-8")  # a lone surrogate raises here
        self.assertIn("m\ufffd", answer["error"])


class RatchetRuleTest(unittest.TestCase):
    """ratchet's own rule: files the reference passes although loading them runs their code."""

    def test_each_stricter_case_is_refused_by_ratchets_rule(self):
        for name, text, function, passes in STRICTER_CASES:
            with self.subTest(name):
                answer = check_source.verdict(text.encode(), function, "case.py")
                self.assertEqual(answer["ok"], passes, "the file runs its own code while it loads")
                self.assertRegex(answer["error"], r"^case\.py line \d+: ")
                self.assertTrue(answer["error"].endswith(INERT), answer["error"])
                with self.assertRaises(check_source.LoadsCode) as refused:
                    check_source.check_source(text.encode(), function, "case.py")
                self.assertEqual(str(refused.exception), answer["error"])

    def test_messages_name_the_line_and_what_is_not_allowed(self):
        cases = dict((name, text) for name, text, _, _ in STRICTER_CASES)

        def error(name):
            return check_source.verdict(cases[name].encode(), "method", "m.py")["error"]

        self.assertEqual(error("classmethod over property, read at import"),
                         "m.py line 2: @classmethod over another decorator on size at class "
                         "level: classmethod may only wrap a plain function (over a property, "
                         f"reading the attribute on the class runs it). {INERT}")
        self.assertEqual(error("enum class"),
                         "m.py line 4: the base enum.Enum of class Color at module level: a class "
                         "may derive only from object, a builtin class, torch.nn.Module, "
                         "torch.autograd.Function or a class of the file; another base may bring "
                         "a metaclass or __init_subclass__ that runs the class's code, as "
                         f"enum.Enum does. {INERT}")
        self.assertEqual(error("class decorator handed the class"),
                         "m.py line 4: the decorator torch.jit.script on class Box at module "
                         "level: a class may carry only @dataclass, which builds it; another "
                         "decorator is handed the class and may call its functions, as "
                         f"torch.jit.script calls its mro(). {INERT}")
        self.assertEqual(error("decorator argument is a function of the file"),
                         "m.py line 8: an argument of the decorator functools.lru_cache that is "
                         "not plain data at module level: a decorator may call, wrap or register "
                         "what it is given, so its arguments may only be constants, "
                         "triton.Config(...), literal lists, tuples, sets and dicts that hold "
                         "nothing of the file but as a dict's values, and names assigned only "
                         f"such values. {INERT}")
        self.assertEqual(error("aliased decorator redefined"),
                         "m.py line 8: memo, which names functools.lru_cache through an import "
                         "but is bound again, at module level: a name that the allow-lists read "
                         f"through an import may be bound only by that import. {INERT}")
        self.assertEqual(error("setter of a rebound property"),
                         "m.py line 13: @x.setter at class level: x is not the property defined "
                         f"just before it. {INERT}")
        self.assertEqual(error("dict unpacking of a class"),
                         "m.py line 6: `**` unpacking in a dict at module level: it calls the "
                         f"unpacked object's keys(). {INERT}")
        self.assertEqual(error("library subscript given a class of the file"),
                         "m.py line 9: a subscript given a function, class or lambda of the file "
                         "at module level: the other side may be a library's code, which could "
                         f"call it. {INERT}")
        self.assertEqual(error("class hook inside an if block"),
                         "m.py line 6: the method __init_subclass__, inside a block of the class "
                         "body, at class level: Python calls it when the class is subclassed or "
                         f"subscripted. {INERT}")
        self.assertEqual(error("star import"),
                         "m.py line 1: a star import (from torch import *) at module level: the "
                         f"names it binds cannot be checked; import the names you use. {INERT}")
        self.assertEqual(error("torch flag with a dunder part"),
                         "m.py line 3: an assignment to torch.__path__ at module level: a dunder "
                         f"attribute is no torch flag. {INERT}")

    def test_the_reference_message_comes_first(self):
        # A file that breaks a reference rule gets the reference's message, even where ratchet's
        # own rule would refuse an earlier line.
        text = "import enum\n\n\nclass Color(enum.Enum):\n    RED = 1\n\n\nprint(1)\n" + METHOD
        self.assertEqual(check_source.verdict(text.encode(), "method", "m.py")["error"],
                         f"m.py line 8: a call to print at module level. {RULES}{MOVE}")


class CheckerFaultTest(unittest.TestCase):
    """Whatever goes wrong inside the checker, the answer is a verdict: one JSON line, exit 0."""

    DEEP = "X = " + "-" * 7000 + "1\n" + METHOD  # ast.parse runs out of parser stack: MemoryError

    def test_a_parser_that_runs_out_of_memory_is_a_refusal(self):
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
            handle.write(self.DEEP)
        self.addCleanup(os.unlink, handle.name)
        for function in ("method", ""):
            with self.subTest(function=function):
                code, out, err = run_checker(handle.name, function, "--name", "deep.py")
                self.assertEqual(code, 0, err)
                self.assertEqual(out.count("\n"), 1, out)
                self.assertEqual(json.loads(out),
                                 {"ok": False, "error": "deep.py is nested too deeply to check",
                                  "function": function, "flags": []})
                self.assertNotIn("Traceback", err)

    def test_an_exception_of_the_checker_is_a_refusal(self):
        def broken(*args, **kwargs):
            raise KeyError("no such node")

        for target in ("parse", "review_flags"):
            with self.subTest(target), mock.patch.object(check_source, target, broken):
                answer = check_source.verdict(METHOD.encode(), "method", "m.py")
                if target == "parse":
                    self.assertEqual(answer["error"],
                                     "m.py could not be checked (KeyError: 'no such node')")
                else:
                    self.assertEqual((answer["ok"], answer["flags"]), (True, []))
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
            handle.write(METHOD)
        self.addCleanup(os.unlink, handle.name)
        out = io.StringIO()
        with mock.patch.object(check_source, "parse", broken), contextlib.redirect_stdout(out):
            code = check_source.main([handle.name, "", "--name", "m.py"])
        self.assertEqual(code, 0)
        self.assertEqual(json.loads(out.getvalue()),
                         {"ok": False, "error": "m.py could not be checked (KeyError: 'no such "
                          "node')", "function": "method", "flags": []})


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

    def test_a_function_not_named_in_ascii_is_refused(self):
        with tempfile.NamedTemporaryFile("wb", suffix=".py", delete=False) as handle:
            handle.write("def m\u00e9thode(train_x, train_y, test_x):\n"
                         "    return test_x[:, 0].long()\n".encode())
        self.addCleanup(os.unlink, handle.name)
        for function in ("", "m\u00e9thode"):
            with self.subTest(function=function):
                code, out, _ = run_checker(handle.name, function)
                answer = json.loads(out)
                self.assertEqual((code, answer["ok"]), (0, False))
                self.assertIn('function is named "m\u00e9thode"; a function is named with '
                              "A-Z a-z 0-9 _ only", answer["error"])

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
