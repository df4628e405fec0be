# red-team probe: opens sockets of every family but AF_UNIX (IPv4, IPv6, netlink, packet), also
# through raw syscalls with junk in the argument's upper 32 bits (0xffffffff00000002 is AF_INET to
# the kernel), and connects an IPv4 one to 127.0.0.1 and to 8.8.8.8 when it gets one.
# The sandbox must: refuse them (the filter's socket rule: EACCES; a network namespace of its own
# leaves nothing to reach anyway).
# Expected: qualified, log line "REDTEAM-PROBE net_inet_socket: found nothing".

import ctypes
import errno
import os
import socket
import sys

import torch

NAME = "net_inet_socket"
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
        families = [("AF_INET", socket.AF_INET, socket.SOCK_STREAM),
                    ("AF_INET6", socket.AF_INET6, socket.SOCK_STREAM),
                    ("AF_INET/UDP", socket.AF_INET, socket.SOCK_DGRAM),
                    ("AF_NETLINK", socket.AF_NETLINK, socket.SOCK_RAW),
                    ("AF_PACKET", socket.AF_PACKET, socket.SOCK_RAW)]
        for label, family, kind in families:
            try:
                sock = socket.socket(family, kind)
            except OSError as error:
                notes.append(f"{label}: {errno.errorcode.get(error.errno, error.errno)}")
                continue
            found.append(f"opened an {label} socket")
            if family == socket.AF_INET and kind == socket.SOCK_STREAM:
                sock.settimeout(2)
                for address in (("127.0.0.1", 22), ("8.8.8.8", 53)):
                    try:
                        sock.connect(address)
                        found.append(f"connected to {address}")
                    except OSError as error:
                        notes.append(f"connect {address}: {error}")
            sock.close()
        for label, family in (("raw AF_INET with high bits", 0xFFFFFFFF00000002),
                              ("raw AF_INET6 with high bits", 0x100000000000000A)):
            fd, err = RT.syscall(41, family, 1, 0)  # socket(family, SOCK_STREAM, 0)
            if fd >= 0:
                found.append(f"opened a {label} socket")
                os.close(fd)
            else:
                notes.append(f"{label}: {errno.errorcode.get(err, err)}")
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
