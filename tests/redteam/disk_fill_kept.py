# red-team: fills its own folder with files of 64 MiB in the warm-up, until a write fails, and
# leaves them there; then labels as ncm.py does.
# The sandbox must: stop the writes at the folder's bound (a tmpfs of sandbox.folder_bytes, which
# holds its /tmp and /dev/shm too) and, since the folder is full when the call ends, disqualify the
# method with the rule that names the limit.
# Expected: disk.
import errno
import os

import torch

calls = 0


def method(train_x, train_y, test_x):
    global calls
    calls += 1  # 1: the warm-up, 2: the timed call (every timed call has a fresh worker)
    if calls == 1:
        chunk = bytes(1 << 20)
        try:
            for index in range(1024):
                with open(f"fill-{index}", "wb") as handle:
                    for _ in range(64):
                        handle.write(chunk)
        except OSError as error:
            if error.errno not in (errno.ENOSPC, errno.EFBIG):
                raise
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
