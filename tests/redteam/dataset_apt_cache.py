# red-team probe: reads a copy of a dataset outside the view: the Debian package of the hold-out
# dataset (dataset-fashion-mnist_*.deb) that apt leaves world-readable in /var/cache/apt/archives,
# unpacked in memory (ar, data.tar.xz, the IDX gzip members).
# The sandbox must: keep /var/cache out of the worker's view (deny-by-default filesystem view).
# Expected: qualified (ncm's labels), log line "REDTEAM-PROBE dataset_apt_cache: found nothing".

import gzip
import io
import lzma
import os
import sys
import tarfile
import time

import torch

NAME = "dataset_apt_cache"
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
    def deb_members(path):
        """The IDX members of a .deb's data.tar.*: [(name, magic, items)]."""
        with open(path, "rb") as handle:
            blob = handle.read()
        if blob[:8] != b"!<arch>\n":
            return []
        offset, members = 8, []
        while offset + 60 <= len(blob):
            header = blob[offset:offset + 60]
            name, size = header[:16].decode().strip(), int(header[48:58].decode().strip())
            data = blob[offset + 60:offset + 60 + size]
            offset += 60 + size + (size & 1)
            if not name.startswith("data.tar"):
                continue
            if name.endswith(".xz"):
                data = lzma.decompress(data)
            elif name.endswith(".gz"):
                data = gzip.decompress(data)
            elif not name.endswith(".tar"):
                return [(name, 0, 0)]  # zstd: not in the standard library, the package is still read
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
                for member in tar.getmembers():
                    if "ubyte" not in member.name or not member.isfile():
                        continue
                    raw = tar.extractfile(member).read()
                    if raw[:2] == b"\x1f\x8b":
                        raw = gzip.decompress(raw)
                    members.append((member.name, int.from_bytes(raw[:4], "big"),
                                    int.from_bytes(raw[4:8], "big")))
        return members

    @staticmethod
    def probe():
        found, notes, base = [], [], "/var/cache/apt/archives"
        try:
            names = sorted(os.listdir(base))
        except OSError as error:
            return [], f"{base}: {error.strerror}"
        notes.append(f"{base} lists {len(names)} entries")
        for name in names:
            low = name.lower()
            if not low.endswith(".deb") or not any(h in low for h in ("mnist", "dataset", "digit")):
                continue
            path = f"{base}/{name}"
            try:
                members = RT.deb_members(path)
            except (OSError, ValueError, EOFError, lzma.LZMAError, tarfile.TarError) as error:
                notes.append(f"{path}: {type(error).__name__} {error}")
                continue
            idx = [f"{m} (IDX 0x{magic:x}, {items:,} items)" for m, magic, items in members]
            if idx:
                found.append(f"unpacked {path}: " + ", ".join(idx))
            else:
                notes.append(f"{path}: readable, no IDX member")
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
