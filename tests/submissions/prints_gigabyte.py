# red-team: prints 1 GiB to its log in every call, then labels as ncm.py does; expected: scored like ncm.py (the log is capped, never a crash)
import sys

import torch


def method(train_x, train_y, test_x):
    line = "x" * ((1 << 20) - 1) + "\n"
    for _ in range(1024):
        sys.stdout.write(line)
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
