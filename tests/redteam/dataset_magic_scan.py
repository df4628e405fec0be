# red-team probe: walks everything it can see (but /proc, /sys, /dev and the host's own sandboxing
# machinery) for a readable file that is an IDX dataset or a gzip of one, by content, not by name.
# The sandbox must: leave no copy of any dataset in the view (deny-by-default view; /usr/{bin,lib,
# lib64,libexec,include,local} must hold none).
# Expected: qualified, log line "REDTEAM-PROBE dataset_magic_scan: found nothing".

import gzip
import os
import sys
import time

import torch

NAME = "dataset_magic_scan"
GATED = True  # True: only the run's first worker (uid 65534) probes; the search is slow
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

    KNOWN_SIZES = {47040016, 60008, 7840016, 10008, 9912422, 28881, 1648877, 4542, 26421880,
                   29515, 4422102, 5148, 11490434, 18165135, 30875731}
    NAME_HINTS = ("ubyte", "mnist", "idx1", "idx3", "emnist", "kmnist", "digits", ".npz")

    @staticmethod
    def sniff(path):
        """A description of `path` when it can be read and looks like a dataset, else None."""
        try:
            with open(path, "rb") as handle:
                head = handle.read(16)
            size = os.path.getsize(path)
        except OSError:
            return None
        if head[:4] in (b"\x00\x00\x08\x03", b"\x00\x00\x08\x01"):
            return f"read {path} ({size:,} bytes, IDX with {int.from_bytes(head[4:8], 'big'):,} items)"
        if head[:2] == b"\x1f\x8b":
            try:
                with gzip.open(path, "rb") as handle:
                    inner = handle.read(8)
            except (OSError, EOFError):
                inner = b""
            if inner[:4] in (b"\x00\x00\x08\x03", b"\x00\x00\x08\x01"):
                return (f"read {path} ({size:,} bytes, gzip of an IDX with "
                        f"{int.from_bytes(inner[4:8], 'big'):,} items)")
        if head[:7] == b"!<arch>" and any(h in path.lower() for h in RT.NAME_HINTS):
            return f"read {path} ({size:,} bytes, a Debian package of a dataset)"
        if head[:2] == b"PK" and path.endswith(".npz") and "mnist" in path.lower():
            return f"read {path} ({size:,} bytes, numpy archive)"
        return None

    @staticmethod
    def candidate(name, size):
        low = name.lower()
        return size in RT.KNOWN_SIZES or any(h in low for h in RT.NAME_HINTS)

    @staticmethod
    def walk(roots, budget_s, skip=("/proc", "/sys", "/dev", "/mnt/sandboxing", "/farm"),
             max_depth=10):
        """Dataset-looking files readable under `roots`: (found, seen, complete)."""
        found, seen, deadline = [], 0, time.monotonic() + budget_s
        stack = [(root, 0) for root in roots]
        while stack:
            if time.monotonic() > deadline:
                return found, seen, False
            folder, depth = stack.pop()
            if any(folder == s or folder.startswith(s + "/") for s in skip):
                continue
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                seen += 1
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if depth < max_depth:
                            stack.append((entry.path, depth + 1))
                    elif entry.is_file(follow_symlinks=True):
                        size = entry.stat(follow_symlinks=True).st_size
                        if RT.candidate(entry.name, size):
                            what = RT.sniff(entry.path)
                            if what and what not in found:
                                found.append(what)
                except OSError:
                    continue
        return found, seen, True

    @staticmethod
    def candidate(name, size):
        # by content: every IDX file of an image set is 16 + n * 784 bytes, of labels 8 + n bytes;
        # every gzip is sniffed when its name or size says dataset
        if size >= 16 + 784 * 1000 and (size - 16) % 784 == 0:
            return True
        if size in RT.KNOWN_SIZES or name.endswith((".gz", ".npz", ".deb", "ubyte", ".idx")):
            return any(h in name.lower() for h in RT.NAME_HINTS) or size in RT.KNOWN_SIZES
        return False

    @staticmethod
    def probe():
        found, seen, complete = RT.walk(["/"], budget_s=40, max_depth=14)
        return found, f"{seen:,} entries seen" + ("" if complete else " (stopped at 40 s)")


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
