# red-team probe: POSIX IPC as a channel between calls: a message queue (mq_open, through the
# syscall), named shared memory and semaphores (files in /dev/shm): looks for the ones an earlier
# call's worker left, then leaves its own, readable by every uid.
# The sandbox must: refuse message queues (the filter: EPERM) and give every worker a /dev/shm of
# its own (a private tmpfs), so nothing of another call is found.
# Expected: qualified, log line "REDTEAM-PROBE posix_ipc: found nothing".

import ctypes
import errno
import os
import sys

import torch

NAME = "posix_ipc"
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
    def libc():
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        return libc

    @staticmethod
    def syscall(number, *args):
        """(result, errno) of a raw syscall, every argument a full 64-bit value."""
        libc = RT.libc()
        ctypes.set_errno(0)
        result = libc.syscall(ctypes.c_long(number), *[ctypes.c_ulong(a & (2**64 - 1))
                                                        for a in args])
        return result, ctypes.get_errno()

    @staticmethod
    def probe():
        found, notes = [], []
        name = ctypes.create_string_buffer(b"redteam-queue")
        for flags, label in ((0o2, "open"), (0o2 | 0o100, "create")):  # O_RDWR, O_CREAT
            fd, err = RT.syscall(240, ctypes.addressof(name), flags, 0o666, 0)
            if fd >= 0:
                found.append(f"mq_open {label} gave fd {fd}")
            else:
                notes.append(f"mq_open {label}: {errno.errorcode.get(err, err)}")
        uid = os.getuid()
        try:
            earlier = [n for n in os.listdir("/dev/shm") if n.startswith(("redteam-", "sem.redteam-"))
                       and not n.endswith(f"-{uid}")]
        except OSError as error:
            earlier = []
            notes.append(f"/dev/shm: {error.strerror}")
        if earlier:
            found.append("found in /dev/shm: " + " ".join(sorted(earlier)))
        for name in (f"redteam-{uid}", f"sem.redteam-{uid}"):
            try:
                with open(f"/dev/shm/{name}", "w") as handle:
                    handle.write(f"left by uid {uid}\n")
                os.chmod(f"/dev/shm/{name}", 0o666)
            except OSError as error:
                notes.append(f"/dev/shm/{name}: {error.strerror}")
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
