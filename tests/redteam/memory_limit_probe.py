# red-team probe: reads which memory bound applies to the worker (RLIMIT_AS, RLIMIT_DATA,
# RLIMIT_RSS, its memory cgroup's limit), without allocating anything.
# The sandbox must: bound a worker's memory below the machine's (a memory cgroup, since RLIMIT_AS
# cannot be used with CUDA), so that memory_hog.py dies alone.
# Expected: qualified, log line "REDTEAM-PROBE memory_limit_probe: found nothing".

import os
import resource
import sys

import torch

NAME = "memory_limit_probe"
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
    def cgroup_limit():
        """The smallest memory limit of the worker's cgroup and its ancestors, or None."""
        limits = []
        try:
            with open("/proc/self/cgroup") as handle:
                lines = handle.read().split()
        except OSError:
            return None
        for line in lines:
            _, controllers, path = line.split(":", 2)
            if controllers == "":  # cgroup v2
                base, files = "/sys/fs/cgroup", ("memory.max", "memory.high")
            elif "memory" in controllers.split(","):
                base, files = "/sys/fs/cgroup/memory", ("memory.limit_in_bytes",)
            else:
                continue
            parts = [p for p in path.split("/") if p]
            for depth in range(len(parts), -1, -1):
                for name in files:
                    try:
                        with open("/".join([base] + parts[:depth] + [name])) as handle:
                            text = handle.read().strip()
                    except OSError:
                        continue
                    if text.isdigit():
                        limits.append(int(text))
        return min(limits) if limits else None

    @staticmethod
    def probe():
        with open("/proc/meminfo") as handle:
            total = int(handle.readline().split()[1]) * 1024
        bounds = {}
        for name in ("RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_RSS"):
            soft, _ = resource.getrlimit(getattr(resource, name))
            if soft != resource.RLIM_INFINITY:
                bounds[name] = soft
        cgroup = RT.cgroup_limit()
        if cgroup is not None:
            bounds["cgroup"] = cgroup
        useful = {k: v for k, v in bounds.items() if v < total and k != "RLIMIT_RSS"}
        note = f"machine {total / 2**30:.1f} GiB; bounds {bounds or 'none'}"
        if not useful:
            return [f"no memory bound below the machine's {total / 2**30:.1f} GiB"], note
        return [], note


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
