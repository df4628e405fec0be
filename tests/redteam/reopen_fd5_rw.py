# red-team probe: reopens the input buffer it was given read-only (fd 5, a memfd the parent fills
# before every call) through /proc/self/fd/5 for reading and writing, and writes its first byte back
# unchanged (a write that changes nothing, to prove it could change the next call's inputs or the
# bytes the parent hashes as the inputs).
# The sandbox must: make the buffer unwritable by the worker whatever path it opens it by (a write
# seal, F_SEAL_WRITE/F_SEAL_FUTURE_WRITE, or a memfd the worker's uid may not open for writing).
# Expected: qualified, log line "REDTEAM-PROBE reopen_fd5_rw: found nothing".

import errno
import fcntl
import os
import sys

import torch

NAME = "reopen_fd5_rw"
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
    def probe():
        found, notes = [], []
        for label, flags in (("O_RDWR", os.O_RDWR), ("O_WRONLY", os.O_WRONLY)):
            try:
                fd = os.open("/proc/self/fd/5", flags)
            except OSError as error:
                notes.append(f"/proc/self/fd/5 {label}: {errno.errorcode.get(error.errno)}")
                continue
            try:
                first = os.pread(5, 1, 0)
                os.pwrite(fd, first, 0)
                found.append(f"reopened the input buffer {label} and wrote to it")
            except OSError as error:
                found.append(f"reopened the input buffer {label} (the write: "
                             f"{errno.errorcode.get(error.errno)})")
            finally:
                os.close(fd)
        try:
            seals = fcntl.fcntl(5, 1034)  # F_GET_SEALS
            notes.append(f"seals {seals:#x}")
        except OSError as error:
            notes.append(f"F_GET_SEALS: {errno.errorcode.get(error.errno)}")
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
