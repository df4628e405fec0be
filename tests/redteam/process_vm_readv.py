# red-team probe: reads another process's memory with process_vm_readv (its parent's, PID 1's) and
# writes its own with process_vm_writev, both refused outright by the filter.
# The sandbox must: refuse both (the filter: EPERM).
# Expected: qualified, log line "REDTEAM-PROBE process_vm_readv: found nothing".

import ctypes
import errno
import os
import sys

import torch

NAME = "process_vm_readv"
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
        buffer = ctypes.create_string_buffer(64)
        local = (ctypes.c_void_p * 2)(ctypes.addressof(buffer), 64)
        for pid in dict.fromkeys((os.getppid(), 1, os.getpid())):
            if pid <= 0:
                continue
            # a remote iovec at an address every x86-64 process maps: its own vsyscall page is
            # gone on new kernels, so use the target's first mapping when visible, else 0x400000
            address = 0x400000
            try:
                with open(f"/proc/{pid}/maps") as handle:
                    address = int(handle.readline().split("-")[0], 16)
            except (OSError, ValueError):
                pass
            remote = (ctypes.c_void_p * 2)(address, 64)
            got, err = RT.syscall(310, pid, ctypes.addressof(local), 1, ctypes.addressof(remote),
                                  1, 0)
            if got > 0:
                found.append(f"process_vm_readv read {got} bytes of pid {pid}")
            else:
                notes.append(f"process_vm_readv {pid}: {errno.errorcode.get(err, err)}")
        remote = (ctypes.c_void_p * 2)(ctypes.addressof(buffer), 64)
        put, err = RT.syscall(311, os.getpid(), ctypes.addressof(local), 1,
                              ctypes.addressof(remote), 1, 0)
        if put > 0:
            found.append("process_vm_writev wrote its own memory")
        else:
            notes.append(f"process_vm_writev: {errno.errorcode.get(err, err)}")
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
