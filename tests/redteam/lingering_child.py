# red-team probe: leaves a process behind: from its timed call, a double-forked child in a session
# of its own, named "rt-linger", ignoring SIGTERM, SIGHUP and SIGINT, that keeps running; and every
# worker's warm-up looks for a running "rt-linger" of an earlier call.
# The sandbox must: stop every process of the worker after its timed call and kill them before the
# next call's method is loaded (a PID namespace of its own also hides them; its end kills them).
# Expected: qualified, log line "REDTEAM-PROBE lingering_child: found nothing".

import ctypes
import os
import signal
import sys
import time

import torch

NAME = "lingering_child"
GATED = False  # True: only the run's first worker (uid 65534) probes; the search is slow
calls = 0


class RT:
    """The probe's helpers, in a class so that method() stays the file's one top-level function."""

    @staticmethod
    def say(line):
        print(line[:4000], file=sys.stderr, flush=True)

    @staticmethod
    def report(found, note=""):
        if note:
            RT.say(f"REDTEAM-NOTE {NAME}: {note}")
        RT.say(f"REDTEAM-PROBE {NAME}: " + ("ESCAPE " + "; ".join(found) if found else
                                              "found nothing"))

    @staticmethod
    def lead():
        """The run's first worker (uid 65534), or any worker outside the full sandbox."""
        uid = os.getuid()
        return uid == 65534 or not 65527 <= uid <= 65534

    @staticmethod
    def ncm(train_x, train_y, test_x):
        """baselines/submissions/ncm.py: nearest class mean, about 15% error."""
        sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
        sums.index_add_(0, train_y, train_x)
        counts = torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)
        means = sums / counts[:, None]
        return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)

    @staticmethod
    def linger():
        if os.fork() != 0:
            return
        os.setsid()
        if os.fork() != 0:
            os._exit(0)
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(signum, signal.SIG_IGN)
        libc = ctypes.CDLL(None)
        libc.prctl(15, b"rt-linger", 0, 0, 0)  # PR_SET_NAME
        os.closerange(3, 64)
        while True:
            time.sleep(0.01)

    @staticmethod
    def probe():
        found = []
        for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
            try:
                with open(f"/proc/{pid}/comm") as handle:
                    comm = handle.read().strip()
                with open(f"/proc/{pid}/stat") as handle:
                    text = handle.read()
                with open(f"/proc/{pid}/status") as handle:
                    uid = next(l for l in handle if l.startswith("Uid:")).split()[1]
            except (OSError, StopIteration):
                continue
            state = text[text.rfind(")") + 2]
            if comm == "rt-linger" and state not in "TtZX":
                found.append(f"rt-linger pid {pid} of uid {uid} runs (state {state})")
        return found, f"uid {os.getuid()}"


def method(train_x, train_y, test_x):
    global calls
    calls += 1  # 1: the warm-up, 2: the timed call (every timed call has a fresh worker)
    if calls == 1 and (not GATED or RT.lead()):
        try:
            found, note = RT.probe()
        except Exception as error:  # a broken probe says so, never "found nothing"
            RT.say(f"REDTEAM-PROBE {NAME}: ERROR {type(error).__name__}: {error}")
        else:
            RT.report(found, note)
    if calls == 2:
        RT.linger()  # from the timed call on, a child of this worker keeps running
    return RT.ncm(train_x, train_y, test_x)
