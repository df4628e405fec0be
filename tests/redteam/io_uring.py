# red-team probe: sets up an io_uring (whose operations, opening files or sockets, the filter would
# never see), and calls io_uring_enter and io_uring_register on a bad descriptor (EBADF would
# show the calls reach the kernel).
# The sandbox must: refuse all three (the filter: ENOSYS).
# Expected: qualified, log line "REDTEAM-PROBE io_uring: found nothing".

import ctypes
import errno
import os
import sys

import torch

NAME = "io_uring"
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
        params = ctypes.create_string_buffer(120)
        fd, err = RT.syscall(425, 8, ctypes.addressof(params))
        if fd >= 0:
            found.append(f"io_uring_setup gave fd {fd}")
            os.close(fd)
        else:
            notes.append(f"io_uring_setup: {errno.errorcode.get(err, err)}")
        for label, number in (("io_uring_enter", 426), ("io_uring_register", 427)):
            result, err = RT.syscall(number, 9999, 0, 0, 0, 0, 0)
            if err != errno.ENOSYS:
                found.append(f"{label} reached the kernel ({errno.errorcode.get(err, err)})")
            else:
                notes.append(f"{label}: ENOSYS")
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
