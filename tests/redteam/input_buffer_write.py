# red-team probe: writes to the input buffer by every other path: a shared writable mapping of fd 5,
# mprotect of the worker's own read-only mapping to writable, /proc/self/mem over that mapping
# (which ignores page protections), ftruncate and fallocate of fd 5; every write puts back the
# byte that was there.
# The sandbox must: refuse them all (a read-only descriptor, and a write seal on the memfd).
# Expected: qualified, log line "REDTEAM-PROBE input_buffer_write: found nothing".

import ctypes
import errno
import mmap
import os
import sys

import torch

NAME = "input_buffer_write"
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
    def mapping():
        """The worker's own mapping of fd 5: (start, end) from /proc/self/maps."""
        with open("/proc/self/maps") as handle:
            for line in handle:
                if "ratchet-inputs" in line or "memfd:" in line:
                    start, end = (int(x, 16) for x in line.split()[0].split("-"))
                    return start, end
        return None

    @staticmethod
    def probe():
        found, notes = [], []
        try:
            view = mmap.mmap(5, 4096, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)
            view[0:1] = view[0:1]
            found.append("mapped fd 5 writable and wrote to it")
            view.close()
        except (OSError, ValueError, TypeError) as error:
            notes.append(f"writable mapping: {error}")
        where = RT.mapping()
        if where is None:
            notes.append("no mapping of the buffer found")
        else:
            start, _ = where
            libc = RT.libc()
            libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
            if libc.mprotect(ctypes.c_void_p(start), 4096, 3) == 0:  # PROT_READ | PROT_WRITE
                found.append("mprotect made the buffer's mapping writable")
                libc.mprotect(ctypes.c_void_p(start), 4096, 1)
            else:
                notes.append(f"mprotect: {errno.errorcode.get(ctypes.get_errno())}")
            try:
                with open("/proc/self/mem", "r+b", buffering=0) as mem:
                    mem.seek(start)
                    first = mem.read(1)
                    mem.seek(start)
                    mem.write(first)
                found.append("wrote the buffer through /proc/self/mem")
            except OSError as error:
                notes.append(f"/proc/self/mem: {errno.errorcode.get(error.errno)}")
        size = os.fstat(5).st_size
        for label, action in (("ftruncate", lambda: os.ftruncate(5, size)),
                              ("fallocate", lambda: os.posix_fallocate(5, 0, size))):
            try:
                action()
                found.append(f"{label} of fd 5 succeeded")
            except OSError as error:
                notes.append(f"{label}: {errno.errorcode.get(error.errno)}")
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
