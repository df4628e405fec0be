# red-team: its warm-up labels as ncm.py; its timed call blocks every signal it may block and
# sleeps forever (no busy loop: the worker's threads are all asleep).
# The sandbox must: end the call at its deadline (max_call_ms + timed_call_grace_s: 65 s) with
# SIGKILL, which cannot be blocked, and clear the worker away.
# Expected: timeout.
import signal
import time

import torch

calls = 0


def method(train_x, train_y, test_x):
    global calls
    calls += 1
    if calls == 2:
        signal.pthread_sigmask(signal.SIG_BLOCK, set(signal.Signals) - {signal.SIGKILL,
                                                                        signal.SIGSTOP})
        while True:
            time.sleep(3600)
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
