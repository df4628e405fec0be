"""worker.py driven through worker protocol v1, as ratchet's parent drives it.

Each test starts a real worker (fds 3/4/5 in place, stdin /dev/null, a log file) and checks what
a parent would see: replies, payloads, error kinds, the worker's exit, and that nothing of the
worker outlives the kill of its process group. Exits 77 (skipped) when this Python has no torch.
"""

import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from protocol_client import (SOURCE_DIR, WorkerProcess, finite, separable_draw,  # noqa: E402
                             session_members)

try:
    import torch  # noqa: F401  the worker needs it; so does this test, to be meaningful
except ImportError:
    print(f"skipped: {sys.executable} has no torch (Debian: apt-get install python3-torch)")
    sys.exit(77)

SUBMISSIONS = SOURCE_DIR / "tests" / "submissions"
NCM = SOURCE_DIR / "baselines" / "submissions" / "ncm.py"
TRAIN, TEST, DIMS = 64, 32, 60


class WorkerTest(unittest.TestCase):
    def start(self, log=None, train=TRAIN, test=TEST):
        worker = WorkerProcess(train=train, test=test, dims=DIMS, log=log)
        self.addCleanup(worker.close)
        return worker

    def started(self, **kwargs):
        worker = self.start(**kwargs)
        reply, payload = worker.hello()
        self.assertTrue(reply["ok"], reply)
        worker.device = reply["device"]
        return worker

    def loaded(self, path, **kwargs):
        worker = self.started(**kwargs)
        reply, _ = worker.load(path)
        self.assertEqual(reply, {"ok": True})
        return worker

    def assert_failure(self, reply, kind, *fragments):
        self.assertIs(reply["ok"], False, reply)
        self.assertEqual(reply["kind"], kind, reply)
        self.assertLessEqual(len(reply["error"]), 4000)
        for fragment in fragments:
            self.assertIn(fragment, reply["error"])

    # -- hello, null calls, end of file ------------------------------------------------------------

    def test_hello_describes_the_worker(self):
        worker = self.start()
        reply, payload = worker.hello()
        self.assertEqual(payload, b"")
        self.assertTrue(reply["ok"])
        self.assertEqual(reply["worker"], "worker.py")
        self.assertEqual(reply["protocol"], 1)
        self.assertIn(reply["device"], ("cpu", "cuda"))
        self.assertEqual(reply["torch"], torch.__version__)
        self.assertEqual(reply["python"], ".".join(map(str, sys.version_info[:3])))
        self.assertEqual(reply["sandbox"]["uid"], os.getuid())
        self.assertIn(reply["sandbox"]["no_new_privs"], (0, 1))
        if reply["device"] == "cpu":
            self.assertIsNone(reply["uuid"])
            self.assertIsNone(reply["l2_bytes"])
        else:
            self.assertRegex(reply["uuid"], r"^GPU-[0-9a-f-]{36}$")
            self.assertGreater(reply["l2_bytes"], 0)
        print(f"\n  hello: {reply}", file=sys.stderr)

    def test_hello_refuses_a_buffer_size_that_does_not_fit(self):
        worker = self.start()
        reply, _ = worker.request({"cmd": "hello", "train": TRAIN, "test": TEST, "dims": DIMS,
                                   "buffer_bytes": worker.size + 8})
        self.assert_failure(reply, "protocol", "buffer_bytes")

    def test_null_call_returns_zero_labels_and_times(self):
        worker = self.started()
        for _ in range(3):
            reply, payload = worker.go(null=True)
            self.assertTrue(reply["ok"], reply)
            self.assertTrue(finite(reply["ms"]) and reply["ms"] >= 0)
            self.assertTrue(finite(reply["wall_ms"]) and reply["wall_ms"] >= 0)
            self.assertEqual(payload, bytes(TEST))

    def test_end_of_file_exits_zero(self):
        worker = self.started()
        worker.close_commands()
        self.assertEqual(worker.wait(), 0)

    def test_end_of_file_before_hello_exits_zero(self):
        worker = self.start()
        worker.close_commands()
        self.assertEqual(worker.wait(), 0)

    # -- load and go -------------------------------------------------------------------------------

    def test_ncm_labels_a_separable_draw(self):
        worker = self.loaded(NCM)
        train_x, train_y, test_x, test_y = separable_draw(TRAIN, TEST, DIMS)
        worker.write_inputs(train_x, train_y, test_x)
        self.assertEqual(worker.request({"cmd": "gc"})[0], {"ok": True})
        reply, payload = worker.go()
        self.assertTrue(reply["ok"], reply)
        self.assertEqual(list(payload), test_y)
        # A second call on other inputs uses the new inputs (the same device tensors, refilled).
        shifted = [(y + 1) % 10 for y in train_y]
        worker.write_inputs(train_x, shifted, test_x)
        reply, payload = worker.go()
        self.assertEqual(list(payload), [(y + 1) % 10 for y in test_y])

    def test_go_before_load_is_a_protocol_error(self):
        worker = self.started()
        self.assert_failure(worker.go()[0], "protocol", "before a method was loaded")

    def test_load_of_a_file_that_fails_to_import(self):
        worker = self.started()
        reply, _ = worker.load(SUBMISSIONS / "import_error.py")
        self.assert_failure(reply, "import", "ModuleNotFoundError", "ratchet_no_such_module")

    def test_load_of_a_name_that_is_not_defined(self):
        worker = self.started()
        self.assert_failure(worker.load(NCM, "predict")[0], "import", "AttributeError")

    def test_load_of_a_name_that_is_not_callable(self):
        worker = self.started()
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
            handle.write("method = 3\n")
        self.addCleanup(os.unlink, handle.name)
        self.assert_failure(worker.load(handle.name)[0], "import", "method is not callable")

    def test_a_file_that_imports_mnist_for_its_main_block_loads(self):
        worker = self.started()
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
            handle.write(NCM.read_text().replace("    import mnist\n", "").replace(
                "import torch\n", "import mnist\nimport torch\n"))
        self.addCleanup(os.unlink, handle.name)
        self.assertEqual(worker.load(handle.name)[0], {"ok": True})

    # -- wrong outputs, exceptions -----------------------------------------------------------------

    def go_with(self, name):
        worker = self.loaded(SUBMISSIONS / name)
        worker.write_inputs(*separable_draw(TRAIN, TEST, DIMS)[:3])
        return worker, worker.go()

    def test_a_list_is_an_output_error(self):
        worker, (reply, payload) = self.go_with("returns_list.py")
        self.assert_failure(reply, "output")
        self.assertEqual(reply["error"], "the method returned list, not a plain torch.Tensor")
        self.assertEqual(payload, b"")
        self.assertTrue(worker.go(null=True)[0]["ok"])  # the worker carries on

    def test_a_wrong_shape_is_an_output_error(self):
        _, (reply, _) = self.go_with("wrong_shape.py")
        self.assertEqual(reply["error"], f"the method returned shape ({TEST}, 1), expected ({TEST},)")

    def test_a_float_dtype_is_an_output_error(self):
        _, (reply, _) = self.go_with("float_dtype.py")
        self.assert_failure(reply, "output")
        self.assertEqual(reply["error"],
                         "the method returned dtype torch.float32, expected an integer dtype")

    def test_a_tensor_on_another_device_is_an_output_error(self):
        worker = self.started()
        if worker.device != "cuda":
            self.skipTest("needs a CUDA device")
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
            handle.write("def method(train_x, train_y, test_x):\n"
                         "    return train_y[: test_x.shape[0]].cpu()\n")
        self.addCleanup(os.unlink, handle.name)
        worker.load(handle.name)
        reply, _ = worker.go()
        self.assert_failure(reply, "output")
        self.assertEqual(reply["error"], "the method returned a tensor on cpu, expected cuda:0")

    def test_labels_outside_0_to_9_become_255(self):
        _, (reply, payload) = self.go_with("out_of_range.py")
        self.assertTrue(reply["ok"], reply)
        self.assertEqual(payload, b"\xff" * TEST)

    def test_an_exception_is_a_method_error_with_its_traceback(self):
        worker, (reply, _) = self.go_with("raises.py")
        self.assert_failure(reply, "method", "Traceback", "RuntimeError",
                            "ratchet red-team: the method gave up")
        self.assertTrue(worker.go(null=True)[0]["ok"])

    def test_a_long_traceback_is_cut_to_its_last_4000_characters(self):
        worker = self.started()
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
            handle.write("def method(train_x, train_y, test_x):\n"
                         "    raise ValueError('x' * 10000 + 'the end')\n")
        self.addCleanup(os.unlink, handle.name)
        worker.load(handle.name)
        reply, _ = worker.go()
        self.assertEqual(len(reply["error"]), 4000)
        self.assertTrue(reply["error"].rstrip().endswith("the end"))

    # -- crashes, hangs, children, noise -----------------------------------------------------------

    def test_a_segfault_kills_the_worker_without_a_reply(self):
        worker = self.loaded(SUBMISSIONS / "segfault.py")
        worker.send({"cmd": "go", "null": False})
        with self.assertRaises(EOFError):
            worker.reply(timeout=60)
        self.assertEqual(worker.wait(), -signal.SIGSEGV)

    def test_abort_kills_the_worker_without_a_reply(self):
        worker = self.loaded(SUBMISSIONS / "abort.py")
        worker.send({"cmd": "go", "null": False})
        with self.assertRaises(EOFError):
            worker.reply(timeout=60)
        self.assertEqual(worker.wait(), -signal.SIGABRT)

    def test_a_hang_sends_nothing_until_killed(self):
        worker = self.loaded(SUBMISSIONS / "hang.py")
        worker.send({"cmd": "go", "null": False})
        with self.assertRaises(TimeoutError):
            worker.reply(timeout=1.5)
        worker.kill()
        self.assertEqual(worker.proc.returncode, -signal.SIGKILL)

    def test_a_forked_child_dies_with_the_process_group(self):
        worker, (reply, payload) = self.go_with("fork_child.py")
        self.assertTrue(reply["ok"], reply)
        self.assertEqual(len(payload), TEST)
        self.assertGreaterEqual(len(session_members(worker.proc.pid)), 2)  # worker and child
        worker.kill()
        deadline = time.monotonic() + 10
        while session_members(worker.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(session_members(worker.proc.pid), [])

    def test_a_gigabyte_of_prints_is_still_scored(self):
        with open(os.devnull, "wb") as log:
            worker = self.loaded(SUBMISSIONS / "prints_gigabyte.py", log=log)
            train_x, train_y, test_x, test_y = separable_draw(TRAIN, TEST, DIMS)
            worker.write_inputs(train_x, train_y, test_x)
            reply, payload = worker.go(timeout=300)
        self.assertTrue(reply["ok"], reply)
        self.assertEqual(list(payload), test_y)

    def test_prints_reach_the_log_even_when_the_worker_is_killed(self):
        with tempfile.TemporaryFile() as log:
            worker = self.loaded(SUBMISSIONS / "hang.py", log=log)
            with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
                handle.write("import time\n\n\ndef method(train_x, train_y, test_x):\n"
                             "    print('before the hang')\n    time.sleep(600)\n")
            self.addCleanup(os.unlink, handle.name)
            worker.load(handle.name)
            worker.send({"cmd": "go", "null": False})
            with self.assertRaises(TimeoutError):
                worker.reply(timeout=1.5)
            worker.kill()
            log.seek(0)
            self.assertIn(b"before the hang", log.read())

    def test_an_undecodable_message_arrives_as_valid_utf8(self):
        worker = self.started()
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
            handle.write("def method(train_x, train_y, test_x):\n"
                         "    raise ValueError(b'bad byte \\xff'.decode('utf-8', 'surrogateescape'))\n")
        self.addCleanup(os.unlink, handle.name)
        worker.load(handle.name)
        reply, _ = worker.go()
        self.assert_failure(reply, "method", "bad byte \ufffd")
        reply["error"].encode("utf-8")  # no lone surrogate left

    def test_programs_the_method_starts_inherit_no_protocol_fd(self):
        worker = self.started()
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
            handle.write("import subprocess\n\n\ndef method(train_x, train_y, test_x):\n"
                         "    seen = subprocess.run(['/bin/sh', '-c', 'ls /proc/$$/fd'], "
                         "close_fds=False, capture_output=True, text=True).stdout.split()\n"
                         "    found = sum(fd in seen for fd in ('3', '4', '5'))\n"
                         "    return train_y[: test_x.shape[0]] * 0 + found\n")
        self.addCleanup(os.unlink, handle.name)
        worker.load(handle.name)
        reply, payload = worker.go()
        self.assertTrue(reply["ok"], reply)
        self.assertEqual(payload, bytes(TEST))

    def test_a_worker_started_without_its_fds_exits_2(self):
        import subprocess
        run = subprocess.run([sys.executable, str(SOURCE_DIR / "runner" / "worker" / "worker.py")],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("fd 3 is not open", run.stderr)

    def test_a_second_hello_is_a_protocol_error(self):
        worker = self.started()
        self.assert_failure(worker.hello()[0], "protocol", "second hello")
        self.assertTrue(worker.go(null=True)[0]["ok"])

    # -- reference, gc, unknown and malformed commands -----------------------------------------------

    def test_reference_runs_before_load_only(self):
        worker = self.started()
        reply, _ = worker.request({"cmd": "reference", "seconds": 0.05, "dim": 64})
        self.assertEqual(reply["ok"], True, reply)
        self.assertIs(reply["exact"], True)
        self.assertGreaterEqual(reply["count"], 8)
        self.assertEqual(reply["count"] % 8, 0)
        worker.load(NCM)
        reply, _ = worker.request({"cmd": "reference", "seconds": 0.05, "dim": 64})
        self.assert_failure(reply, "reference", "before the method is loaded")

    def test_reference_of_a_dimension_that_is_not_a_power_of_4_is_inexact(self):
        worker = self.started()
        reply, _ = worker.request({"cmd": "reference", "seconds": 0.01, "dim": 128})
        self.assertIs(reply["exact"], False)

    def test_unknown_command(self):
        worker = self.started()
        reply, _ = worker.request({"cmd": "bogus"})
        self.assert_failure(reply, "protocol")
        self.assertEqual(reply["error"], "unknown command 'bogus'")
        self.assertTrue(worker.go(null=True)[0]["ok"])

    def test_json_that_is_not_an_object_is_answered_and_survived(self):
        worker = self.started()
        worker.send(b"[1, 2]")
        self.assert_failure(worker.reply()[0], "protocol", "not an object")
        worker.send(b"{not json")
        self.assert_failure(worker.reply()[0], "protocol", "not JSON")
        self.assertTrue(worker.go(null=True)[0]["ok"])

    def test_a_bad_magic_is_answered_then_the_worker_exits(self):
        worker = self.started()
        worker.send({"cmd": "gc"}, magic=0x12345678)
        self.assert_failure(worker.reply()[0], "protocol", "bad magic")
        self.assertEqual(worker.wait(), 2)

    def test_an_oversized_length_is_refused_before_reading(self):
        worker = self.started()
        worker.send_raw(struct.pack("<III", 0x31544352, (1 << 16) + 1, 0))
        self.assert_failure(worker.reply()[0], "protocol", "outside 1..65536")
        self.assertEqual(worker.wait(), 2)

    def test_a_command_with_a_payload_is_refused(self):
        worker = self.started()
        worker.send({"cmd": "gc"}, payload_length=4)
        self.assert_failure(worker.reply()[0], "protocol", "payload")
        self.assertEqual(worker.wait(), 2)

    def test_end_of_file_inside_a_frame(self):
        worker = self.started()
        worker.send_raw(struct.pack("<III", 0x31544352, 100, 0) + b'{"cmd"')
        worker.close_commands()
        self.assert_failure(worker.reply()[0], "protocol", "end of file")
        self.assertEqual(worker.wait(), 2)

    def test_the_input_buffer_is_mapped_read_only(self):
        worker = self.started()
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
            handle.write("import mmap\n\n\ndef method(train_x, train_y, test_x):\n"
                         "    try:\n"
                         "        mmap.mmap(5, 8, prot=mmap.PROT_READ | mmap.PROT_WRITE)\n"
                         "    except OSError:\n"
                         "        return train_y[: test_x.shape[0]] * 0\n"
                         "    return train_y[: test_x.shape[0]] * 0 + 1\n")
        self.addCleanup(os.unlink, handle.name)
        worker.load(handle.name)
        reply, payload = worker.go()
        self.assertTrue(reply["ok"], reply)
        self.assertEqual(payload, bytes(TEST))  # mapping fd 5 writable failed


class LabelsFromRaw(unittest.TestCase):
    """worker.py's bytes path for the labels (labels_from_raw), called directly in a child
    interpreter (importing worker.py rebinds the standard streams): it answers whenever every
    value fits its lowest byte, whatever the width, and leaves every other case (None) to the
    path that compares values whole."""

    CASES = {  # name: (struct format letter, values)
        "int16 labels": ("h", [i % 10 for i in range(1000)]),
        "int64 labels and values 10-255": ("q", [i % 256 for i in range(1000)]),
        "int32 labels and one -1": ("i", [i % 10 for i in range(999)] + [-1]),
        "int64 labels and one 2**40 + 3": ("q", [i % 10 for i in range(500)] + [2**40 + 3]
                                           + [i % 10 for i in range(499)]),
        "int16 259 first": ("h", [259] + [i % 10 for i in range(999)]),
        "int8 every value": ("b", [i % 256 - 128 for i in range(1000)]),
        "uint8 every value": ("B", [i % 256 for i in range(1000)]),
    }

    def test_the_bytes_path_answers_exactly_when_every_value_fits_its_lowest_byte(self):
        program = (
            "import importlib.util, json, struct, sys\n"
            "spec = importlib.util.spec_from_file_location('worker_module', sys.argv[1])\n"
            "w = importlib.util.module_from_spec(spec)\n"
            "spec.loader.exec_module(w)\n"
            "out = {}\n"
            "for name, (letter, values) in json.loads(sys.argv[2]).items():\n"
            "    raw = struct.pack('<%d%s' % (len(values), letter), *values) + bytes(64)\n"
            "    got = w.labels_from_raw(raw, struct.calcsize(letter), len(values))\n"
            "    out[name] = None if got is None else list(got)\n"
            "print('RESULT ' + json.dumps(out))\n")
        done = subprocess.run([sys.executable, "-c", program,
                               str(SOURCE_DIR / "runner" / "worker" / "worker.py"),
                               json.dumps(self.CASES)],
                              capture_output=True, text=True, timeout=120)
        line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
        self.assertEqual(len(line), 1, done.stdout + done.stderr)
        got = json.loads(line[0][len("RESULT "):])
        for name, (letter, values) in self.CASES.items():
            whole = [v if 0 <= v <= 9 else 255 for v in values]
            fits = letter in "bB" or all(0 <= v <= 255 for v in values)
            self.assertEqual(got[name], whole if fits else None, name)


if __name__ == "__main__":
    unittest.main(verbosity=2)
