# red-team probe: tries to attach to its parent and to PID 1 with ptrace (PTRACE_ATTACH,
# PTRACE_SEIZE), to be traced (PTRACE_TRACEME), and to open their /proc/PID/mem.
# The sandbox must: refuse ptrace (the filter: EPERM) and the memory files (another uid).
# Expected: qualified, log line "REDTEAM-PROBE ptrace_parent: found nothing".

import ctypes
import errno
import os
import sys

import torch

NAME = "ptrace_parent"
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
        for pid in dict.fromkeys((os.getppid(), 1)):
            if pid <= 0 or pid == os.getpid():
                notes.append(f"parent pid {pid}: not visible")
                continue
            for label, request in (("PTRACE_ATTACH", 16), ("PTRACE_SEIZE", 0x4206)):
                result, err = RT.syscall(101, request, pid, 0, 0)
                if result == 0:
                    found.append(f"{label} on pid {pid}")
                    RT.syscall(101, 17, pid, 0, 0)  # PTRACE_DETACH
                else:
                    notes.append(f"{label} {pid}: {errno.errorcode.get(err, err)}")
            try:
                with open(f"/proc/{pid}/mem", "rb"):
                    found.append(f"opened /proc/{pid}/mem")
            except OSError as error:
                notes.append(f"/proc/{pid}/mem: {errno.errorcode.get(error.errno)}")
        child = os.fork()
        if child == 0:  # PTRACE_TRACEME in a child: a traced worker is out of the filter's reach
            result, err = RT.syscall(101, 0, 0, 0, 0)
            os._exit(0 if result == 0 else 1)
        _, status = os.waitpid(child, 0)
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
            found.append("PTRACE_TRACEME succeeded")
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
