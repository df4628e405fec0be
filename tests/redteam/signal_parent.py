# red-team probe: checks whether it may signal processes that are not its own: its parent (ratchet,
# which it must never stop or kill), PID 1, every visible PID (with signal 0, which only checks
# the permission), through kill() and through pidfd_open + pidfd_send_signal.
# The sandbox must: refuse every one (another uid; the parent outside its PID namespace).
# Expected: qualified, log line "REDTEAM-PROBE signal_parent: found nothing".

import ctypes
import errno
import os
import sys

import torch

NAME = "signal_parent"
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
        mine = os.getsid(0)
        targets = {os.getppid(), 1} | {int(p) for p in os.listdir("/proc") if p.isdigit()}
        for pid in sorted(targets):
            if pid <= 0 or pid == os.getpid():
                continue
            try:
                if os.getsid(pid) == mine:
                    continue  # one of its own
            except OSError:
                pass
            try:
                os.kill(pid, 0)
                found.append(f"may signal pid {pid}")
            except OSError as error:
                notes.append(f"kill {pid}: {errno.errorcode.get(error.errno)}")
            pidfd, err = RT.syscall(434, pid, 0)  # pidfd_open
            if pidfd >= 0:
                sent, err2 = RT.syscall(424, pidfd, 0, 0, 0)  # pidfd_send_signal(fd, 0)
                if sent == 0:
                    found.append(f"may signal pid {pid} through a pidfd")
                os.close(pidfd)
        notes.append(f"ppid {os.getppid()}")
        return found, "; ".join(notes[:20])


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
