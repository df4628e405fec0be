# red-team probe: measures how much it could write, without filling anything: statvfs of its
# folder, $TMPDIR, /tmp, /var/tmp, /dev/shm, and RLIMIT_FSIZE; then writes 64 MiB in its folder to
# check that the place is really writable.
# The sandbox must: bound what a worker can write (its folder on a filesystem or quota of a bounded
# size; the private temporary folders are tmpfs of a bounded size), below what would hurt the
# machine. Every writable place with more than 4 GiB free counts as an escape.
# Expected: qualified, log line "REDTEAM-PROBE disk_limit_probe: found nothing".

import os
import resource
import sys

import torch

NAME = "disk_limit_probe"
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
        places = [os.getcwd(), os.environ.get("TMPDIR", ""), "/tmp", "/var/tmp", "/dev/shm"]
        for place in dict.fromkeys(p for p in places if p):
            try:
                stat = os.statvfs(place)
            except OSError as error:
                notes.append(f"{place}: {error.strerror}")
                continue
            free = stat.f_bavail * stat.f_frsize
            writable = os.access(place, os.W_OK)
            notes.append(f"{place}: {free / 2**30:.1f} GiB free{'' if writable else ' (read-only)'}")
            if writable and free > 4 << 30:
                found.append(f"{place} is writable with {free / 2**30:.1f} GiB free")
        soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
        notes.append(f"RLIMIT_FSIZE {soft}")
        path = os.path.join(os.getcwd(), "redteam-disk-probe")
        try:
            with open(path, "wb") as handle:
                for _ in range(64):
                    handle.write(bytes(1 << 20))
            notes.append("wrote 64 MiB into its folder")
        except OSError as error:
            notes.append(f"writing 64 MiB into its folder: {error.strerror}")
        finally:
            try:
                os.unlink(path)
            except OSError:
                pass
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
