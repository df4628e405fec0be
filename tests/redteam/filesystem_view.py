# red-team probe: lists what the worker can see beyond the deny-by-default view (/usr/{bin,lib,lib64,
# libexec,include,local} and merged-usr links, a few /etc files, the interpreter's prefix, /sys
# read-only, its own /proc, a minimal /dev, private /tmp, /var/tmp, /dev/shm, its own folder).
# The sandbox must: show nothing else: no /home, /root, /srv, /opt, /mnt, /work, /var/cache,
# /usr/share, /etc/shadow-like files, no writable /sys, no device beyond null/zero/full/random/
# urandom (and the GPU's), no other worker's folder.
# Expected: qualified, log line "REDTEAM-PROBE filesystem_view: found nothing".

import errno
import os
import sys

import torch

NAME = "filesystem_view"
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

    ALLOWED_TOP = {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "sys", "proc",
                   "dev", "tmp", "var"}
    ALLOWED_USR = {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "libexec", "include", "local"}
    ALLOWED_DEV = {"null", "zero", "full", "random", "urandom", "shm", "fd", "stdin", "stdout",
                   "stderr", "pts", "ptmx"}
    ETC_SECRETS = ("shadow", "gshadow", "ssh", "sudoers", "machine-id", "hostname", "hosts",
                   "resolv.conf", "apt", "environment", "crontab")

    @staticmethod
    def probe():
        found, notes = [], []
        top = set(os.listdir("/"))
        extra = sorted(top - RT.ALLOWED_TOP)
        if extra:
            found.append("/ holds " + " ".join(extra))
        for folder, allowed in (("/usr", RT.ALLOWED_USR), ("/var", {"tmp"})):
            try:
                more = sorted(set(os.listdir(folder)) - allowed)
            except OSError:
                continue
            if more:
                found.append(f"{folder} holds " + " ".join(more))
        try:
            dev = set(os.listdir("/dev"))
            more = sorted(n for n in dev - RT.ALLOWED_DEV if not n.startswith("nvidia"))
            if more:
                found.append("/dev holds " + " ".join(more[:40]) + (" ..." if len(more) > 40 else ""))
        except OSError:
            pass
        try:
            secrets = [n for n in os.listdir("/etc") if n in RT.ETC_SECRETS]
            if secrets:
                found.append("/etc holds " + " ".join(sorted(secrets)))
            notes.append("/etc: " + " ".join(sorted(os.listdir("/etc"))))
        except OSError:
            pass
        # writes that change nothing: each file's current value written back
        for path in ("/proc/sys/kernel/ns_last_pid", "/sys/kernel/mm/transparent_hugepage/enabled",
                     "/proc/sys/vm/drop_caches", "/sys/fs/cgroup/cgroup.procs"):
            try:
                with open(path) as handle:
                    value = handle.read().strip()
            except OSError:
                continue
            if "[" in value:
                value = value[value.index("[") + 1:value.index("]")]
            if path.endswith("cgroup.procs"):
                value = str(os.getpid())
            try:
                with open(path, "w") as handle:
                    handle.write(value + "\n")
                found.append(f"wrote {path}")
            except OSError as error:
                notes.append(f"write {path}: {errno.errorcode.get(error.errno, error.errno)}")
        others = [n for n in os.listdir("/tmp") if os.path.join("/tmp", n) != os.getcwd()]
        if others:
            found.append("/tmp holds " + " ".join(others[:20]))
        notes.append("/: " + " ".join(sorted(top)))
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
