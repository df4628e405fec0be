# red-team probe: tries to leave or loosen its control group (sandbox/cgroup.h) in the warm-up:
# reads /proc/self/cgroup and /proc/self/mountinfo for the group's path, looks for a cgroup
# filesystem under /sys/fs/cgroup, tries to mount cgroup2 and cgroup v1 (memory) itself, and to
# write its pid into any cgroup.procs or a larger value into any memory.max / pids.max it finds.
# The sandbox must: hold no cgroup filesystem in the view, refuse mount(2) (the filter), and show
# the group as "/" (the cgroup namespace).
# Expected: qualified, log line "REDTEAM-PROBE cgroup_escape: found nothing".
import ctypes
import os
import sys

import torch

NAME = "cgroup_escape"
calls = 0


class RT:
    """The probe's helpers, in a class so that method() stays the file's one top-level function."""

    @staticmethod
    def say(line):
        print(line[:4000], file=sys.stderr, flush=True)

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
        groups = open("/proc/self/cgroup").read()
        notes.append("cgroup " + groups.replace("\n", " | "))
        if "ratchet" in groups:
            found.append("/proc/self/cgroup names ratchet's group: " + groups.strip())
        mounts = open("/proc/self/mountinfo").read()
        if " cgroup" in mounts:
            found.append("a cgroup filesystem is mounted in the view")
        for root, _, files in os.walk("/sys/fs/cgroup"):
            for name in files:
                if name in ("cgroup.procs", "tasks", "memory.max", "pids.max",
                            "memory.limit_in_bytes"):
                    path = os.path.join(root, name)
                    try:
                        with open(path, "w") as handle:
                            handle.write(str(os.getpid()) if "procs" in name or name == "tasks"
                                         else "max")
                        found.append("wrote " + path)
                    except OSError as error:
                        notes.append(f"{path}: {error.strerror}")
        libc = ctypes.CDLL(None, use_errno=True)
        os.makedirs("cg", exist_ok=True)
        for fstype, options in ((b"cgroup2", None), (b"cgroup", b"memory")):
            if libc.mount(b"none", b"cg", fstype, 0, options) == 0:
                found.append("mounted " + fstype.decode())
            else:
                notes.append(f"mount {fstype.decode()}: {os.strerror(ctypes.get_errno())}")
        return found, "; ".join(notes)


def method(train_x, train_y, test_x):
    global calls
    calls += 1  # 1: the warm-up, 2: the timed call (every timed call has a fresh worker)
    if calls == 1:
        try:
            found, note = RT.probe()
        except Exception as error:  # a broken probe says so, never "found nothing"
            RT.say(f"REDTEAM-PROBE {NAME}: ERROR {type(error).__name__}: {error}")
        else:
            RT.say(f"REDTEAM-NOTE {NAME}: {note}")
            RT.say(f"REDTEAM-PROBE {NAME}: " + ("ESCAPE " + "; ".join(found) if found else
                                                  "found nothing"))
    return RT.ncm(train_x, train_y, test_x)
