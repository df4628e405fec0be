# red-team probe: looks for set-user-ID and set-group-ID programs in the view (/usr/bin, /usr/sbin,
# /usr/lib, /usr/libexec, /usr/local) and runs one (/usr/bin/newgrp, /usr/bin/su, /usr/bin/mount...)
# to see whether it gains its owner's identity.
# The sandbox must: make set-user-ID bits powerless: no_new_privs and nosuid mounts (and, better,
# no such program in the view).
# Expected: qualified (ncm's labels), log line "REDTEAM-PROBE setuid_exec: found nothing".

import os
import stat
import subprocess
import sys

import torch

NAME = "setuid_exec"
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
        found, notes, programs = [], [], []
        for root in ("/usr/bin", "/usr/sbin", "/usr/lib", "/usr/libexec", "/usr/local"):
            for folder, _, names in os.walk(root):
                for name in names:
                    path = os.path.join(folder, name)
                    try:
                        info = os.lstat(path)
                    except OSError:
                        continue
                    if stat.S_ISREG(info.st_mode) and info.st_mode & (stat.S_ISUID | stat.S_ISGID):
                        programs.append((path, info.st_uid))
        with open("/proc/self/status") as handle:
            nnp = next((l.split()[1] for l in handle if l.startswith("NoNewPrivs:")), "?")
        notes.append(f"NoNewPrivs {nnp}; {len(programs)} set-id programs: "
                     + " ".join(p for p, _ in programs[:12]))
        for path, owner in programs:
            nosuid = bool(os.statvfs(path).f_flag & os.ST_NOSUID)
            if nnp != "1" and not nosuid:
                found.append(f"{path} (owner {owner}) would gain its owner's identity")
        # one real try: a set-uid program that reports the effective uid it runs with
        probe = "import os; print(os.geteuid())"
        for path, owner in programs:
            if os.path.basename(path) in ("python3", "perl"):
                result = subprocess.run([path, "-c", probe], capture_output=True, text=True)
                if result.stdout.strip() == str(owner) and owner != os.getuid():
                    found.append(f"{path} ran with euid {owner}")
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
