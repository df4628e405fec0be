# red-team probe: an abstract Unix socket as a channel between workers: each worker's warm-up
# tries to connect to "@redteam-channel" (bound by an earlier call's worker, which the kernel keeps
# answering while that process exists, stopped or not), then binds and listens on it itself and
# keeps it open through its timed call.
# The sandbox must: give every worker a network namespace of its own (the abstract namespace is per
# network namespace).
# Expected: qualified, log line "REDTEAM-PROBE abstract_unix: found nothing".

import os
import socket
import sys

import torch

NAME = "abstract_unix"
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

    held = []

    @staticmethod
    def probe():
        found, notes = [], []
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.settimeout(1)
        try:
            client.connect("\0redteam-channel")
            found.append("connected to @redteam-channel, bound by an earlier worker")
        except OSError as error:
            notes.append(f"connect: {error.strerror}")
        finally:
            client.close()
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            server.bind("\0redteam-channel")
            server.listen(8)
            RT.held.append(server)
            notes.append(f"bound @redteam-channel as uid {os.getuid()}")
        except OSError as error:
            found.append(f"@redteam-channel is taken: {error.strerror}")
        return found, "; ".join(notes)


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
