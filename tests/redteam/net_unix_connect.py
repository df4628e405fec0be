# red-team probe: connects to every Unix socket it can find: path sockets in /run, /var/run, /tmp,
# /dev (/dev/log), and the abstract ones listed in /proc/net/unix (the host's daemons, the CUDA
# driver's per-process sockets, other workers).
# The sandbox must: leave no socket of the host or of another worker within reach (no /run in the
# view, a network namespace of its own for the abstract namespace).
# Expected: qualified, log line "REDTEAM-PROBE net_unix_connect: found nothing".

import os
import socket
import stat
import sys

import torch

NAME = "net_unix_connect"
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
        found, notes, paths = [], [], set()
        for root in ("/run", "/var/run", "/tmp", "/var/tmp", "/dev", "/dev/shm"):
            for folder, _, names in os.walk(root):
                for name in names:
                    path = os.path.join(folder, name)
                    try:
                        if stat.S_ISSOCK(os.lstat(path).st_mode):
                            paths.add(path)
                    except OSError:
                        pass
        abstract = set()
        try:
            with open("/proc/net/unix") as handle:
                next(handle)
                for line in handle:
                    parts = line.split()
                    if len(parts) >= 8 and parts[7].startswith("@"):
                        abstract.add(parts[7])
                    elif len(parts) >= 8:
                        paths.add(parts[7])
        except OSError as error:
            notes.append(f"/proc/net/unix: {error.strerror}")
        own = set()  # its own sockets (on a GPU the CUDA driver listens on one in every process)
        for fd in os.listdir("/proc/self/fd"):
            try:
                link = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:["):
                own.add(link[8:-1])
        try:
            with open("/proc/net/unix") as handle:
                next(handle)
                for line in handle:
                    parts = line.split()
                    if len(parts) >= 8 and parts[6] in own:
                        abstract.discard(parts[7])
                        paths.discard(parts[7])
        except OSError:
            pass
        for target in sorted(paths) + sorted(abstract):
            address = "\0" + target[1:] if target.startswith("@") else target
            for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET):
                sock = socket.socket(socket.AF_UNIX, kind)
                sock.settimeout(1)
                try:
                    sock.connect(address)
                    found.append(f"connected to {target}")
                    break
                except OSError:
                    pass
                finally:
                    sock.close()
        notes.append(f"{len(paths)} path sockets, {len(abstract)} abstract ones listed")
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
