# red-team: forks a child that sleeps on (holding the reply pipe open), then labels as ncm.py does; expected: scored like ncm.py, the child killed with the worker
import os
import time

import torch


def method(train_x, train_y, test_x):
    if os.fork() == 0:
        time.sleep(600)
        os._exit(0)
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
