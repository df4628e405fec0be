# red-team: fills the disk through its own folder: writes files of 512 MiB (under RLIMIT_FSIZE),
# up to 64 GiB in all, into the folder it was started in, until a write fails.
# The sandbox must: stop the writes (its folder is a tmpfs of sandbox.folder_bytes; the largest file is
# sandbox.file_bytes). The probe removes its files, so nothing is left by which to name a
# limit (disk_fill_kept.py keeps them): the outcome is the method's.
# Expected: qualified (ncm's labels), log line "REDTEAM-PROBE disk_fill_folder: found nothing"
# (the NOTE line says where the writes stopped); "ESCAPE wrote 64 GiB" means no limit.

import errno
import os
import sys

import torch

NAME = "disk_fill_folder"
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

    TARGET = ""  # "": the folder the worker was started in
    LIMIT_GIB = 64

    @staticmethod
    def probe():
        folder, written, chunk = RT.TARGET or os.getcwd(), 0, bytes(1 << 20)
        stop = "no error"
        try:
            for index in range(RT.LIMIT_GIB * 2):
                with open(os.path.join(folder, f"redteam-fill-{index}"), "wb") as handle:
                    for _ in range(512):
                        handle.write(chunk)
                        written += len(chunk)
        except OSError as error:
            stop = f"{errno.errorcode.get(error.errno, error.errno)}"
        note = f"wrote {written / 2**30:.2f} GiB into {folder}, then {stop}"
        for name in os.listdir(folder):
            if name.startswith("redteam-fill-"):
                os.unlink(os.path.join(folder, name))
        if written >= RT.LIMIT_GIB << 30:
            return [f"wrote {RT.LIMIT_GIB} GiB into {folder} without a limit"], note
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
