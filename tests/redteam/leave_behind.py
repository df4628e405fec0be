# red-team probe: files as a channel between calls: every worker's warm-up looks for the markers an
# earlier call's worker left in /tmp, /var/tmp, /dev/shm, /run/lock, $TMPDIR, $HOME and the parent
# of its folder, then leaves its own there, readable and writable by every uid.
# The sandbox must: give every worker private temporary folders (tmpfs of its own) and a folder of
# its own, removed after the call.
# Expected: qualified, log line "REDTEAM-PROBE leave_behind: found nothing".

import os
import sys

import torch

NAME = "leave_behind"
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
    def places():
        return list(dict.fromkeys(p for p in (
            "/tmp", "/var/tmp", "/dev/shm", "/run/lock", os.environ.get("TMPDIR"),
            os.environ.get("HOME"), os.path.dirname(os.getcwd()), os.getcwd()) if p))

    @staticmethod
    def probe():
        found, notes, uid = [], [], os.getuid()
        for place in RT.places():
            try:
                names = os.listdir(place)
            except OSError as error:
                notes.append(f"{place}: {error.strerror}")
                continue
            earlier = [n for n in names if n.startswith("redteam-marker-")
                       and n != f"redteam-marker-{uid}"]
            if earlier:
                found.append(f"{place} holds {' '.join(sorted(earlier))}")
        for place in RT.places():
            path = os.path.join(place, f"redteam-marker-{uid}")
            try:
                with open(path, "w") as handle:
                    handle.write(f"uid {uid} was here\n")
                os.chmod(path, 0o666)
            except OSError as error:
                notes.append(f"{path}: {error.strerror}")
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
