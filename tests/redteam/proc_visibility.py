# red-team probe: counts the processes it can see in /proc that are not its own (ratchet, the other
# workers, the machine's daemons) and reads their command lines and uids.
# The sandbox must: give every worker a PID namespace of its own, with a /proc of that namespace,
# so that only the worker's own processes are visible.
# Expected: qualified, log line "REDTEAM-PROBE proc_visibility: found nothing".

import os
import sys

import torch

NAME = "proc_visibility"
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
        mine, others = os.getpid(), []
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == mine:
                continue
            try:
                with open(f"/proc/{name}/status") as handle:
                    status = dict(line.split(":", 1) for line in handle if ":" in line)
                with open(f"/proc/{name}/cmdline", "rb") as handle:
                    cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace")[:80]
            except OSError:
                continue
            # a process this worker started (a descendant) shares its session
            if int(os.getsid(int(name))) == os.getsid(0):
                continue
            others.append(f"{name} uid {status['Uid'].split()[0]} {status['Name'].strip()} "
                          f"[{cmdline.strip()}]")
        found = [f"sees {len(others)} processes outside its own session: "
                 + ", ".join(others[:12])] if others else []
        return found, f"own pid {mine}"


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
