# red-team probe: reads which bound applies to the number of processes and threads it may start
# (RLIMIT_NPROC, its pids cgroup's pids.max), without starting any.
# The sandbox must: bound them (fork_bomb.py and thread_bomb.py must fail at the bound, not fill
# the machine's PID space). The control group's pids.max is out of the worker's sight (the view
# holds no cgroup filesystem); RLIMIT_NPROC, four times it, is the bound the probe can read.
# Expected: qualified, log line "REDTEAM-PROBE nproc_limit_probe: found nothing".

import os
import resource
import sys

import torch

NAME = "nproc_limit_probe"
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
        soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
        pids = None
        try:
            with open("/proc/self/cgroup") as handle:
                for line in handle:
                    _, controllers, path = line.strip().split(":", 2)
                    if "pids" in controllers.split(",") or controllers == "":
                        base = "/sys/fs/cgroup/pids" if controllers else "/sys/fs/cgroup"
                        try:
                            with open(f"{base}{path.rstrip('/')}/pids.max") as limit:
                                text = limit.read().strip()
                            if text.isdigit():
                                pids = int(text)
                        except OSError:
                            pass
        except OSError:
            pass
        with open("/proc/sys/kernel/threads-max") as handle:
            machine = int(handle.read())
        note = f"RLIMIT_NPROC {soft}; pids.max {pids}; threads-max {machine}"
        bounded = [b for b in (soft, pids) if b is not None and b != resource.RLIM_INFINITY
                   and b <= 16384]
        return ([] if bounded else ["no bound on processes or threads below the machine's"]), note


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
