# red-team probe: a channel between calls through the last PID allocated, the fifth field of
# /proc/loadavg. Each worker's warm-up reads it (mod 4096), decodes the quarter the previous call's
# worker left it in (its uid % 4, marked by an offset of 512 into the quarter), then burns PIDs
# (threads) to move it there for its own uid. A match in most calls is a working channel.
# The sandbox must: give every worker a PID namespace of its own (the field is that namespace's).
# Expected: qualified, log line "REDTEAM-PROBE pid_channel_loadavg: found nothing" in most calls.

import os
import sys
import threading

import torch

NAME = "pid_channel_loadavg"
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

    SOURCE = "/proc/loadavg last pid"

    @staticmethod
    def counter():
        with open("/proc/loadavg") as handle:
            return int(handle.read().split()[4])

    MOD, QUARTER = 4096, 1024

    @staticmethod
    def burn(count):
        """`count` new tasks (threads): each takes a PID and counts as a fork in /proc/stat."""
        for _ in range(count):
            thread = threading.Thread(target=int)
            thread.start()
            thread.join()

    @staticmethod
    def previous_uid(uid):
        """The uid of the worker of the call before: workers take 65534, 65533, ..., 65527."""
        return 65527 if uid == 65534 else uid + 1

    @staticmethod
    def probe():
        """Receive: the counter's quarter (mod 4096) left by the previous call's worker, which
        moved it to 512 past the start of the quarter of its uid % 4 (a counter that only this
        worker's own processes move stays below 512 and never decodes). Send: move it there for
        this uid."""
        uid = os.getuid()
        first = RT.counter()
        got = (first % RT.MOD) // RT.QUARTER
        framed = 512 <= first % RT.QUARTER < 1000  # the sender's mark, plus at most 488 of noise
        expected = RT.previous_uid(uid) % 4
        want = (uid % 4) * RT.QUARTER + 512
        for _ in range(16):
            offset = (RT.counter() - want) % RT.MOD
            if offset < 64:
                break
            RT.burn(RT.MOD - offset)
        after = RT.counter()
        note = (f"uid {uid}: read {first} (mod 4096: {first % RT.MOD}, quarter {got}, "
                f"{'framed' if framed else 'not framed'}), expected "
                f"quarter {expected} from uid {RT.previous_uid(uid)}; left it at {after} "
                f"(mod 4096: {after % RT.MOD})")
        if framed and got == expected:
            return [f"received {got} from the previous call's worker through {RT.SOURCE}"], note
        return [], note


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
    return RT.ncm(train_x, train_y, test_x)
