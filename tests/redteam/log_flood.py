# red-team: floods its log in every call: 256 MiB to stderr without a newline, bytes that are not
# UTF-8 (0xff, lone continuation bytes), NULs and carriage returns, written straight to fd 2 and
# fd 1; then labels as ncm.py.
# The sandbox must: keep only the tail of a worker's log (limits.worker_log_bytes, 20,000 bytes)
# without holding the whole flood in memory, and never fail the call for it.
# Expected: qualified (ncm's labels), every logs/NN.log at most 20,000 bytes.
import os

import torch


def method(train_x, train_y, test_x):
    chunk = (b"\xff\xfe\x80\x00\r" * 13107 + b"\xc3")[: 1 << 16]
    for fd in (2, 1):
        for _ in range(2048):  # 128 MiB to each of fd 2 and fd 1
            os.write(fd, chunk)
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
