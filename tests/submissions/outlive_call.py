# red-team: from its timed call on, a thread and a forked child keep printing the clock, to run on after the call; expected: scored like ncm.py, both stopped before the next calibration and killed
import os
import threading
import time

import torch

calls = 0


def tick(who):
    while True:
        print(f"tick {who} {time.monotonic_ns()}", flush=True)
        time.sleep(0.001)


def method(train_x, train_y, test_x):
    global calls
    calls += 1  # 1: the warm-up, 2: the timed call
    if calls == 2:
        if os.fork() == 0:
            tick("child")
        threading.Thread(target=tick, args=("thread",), daemon=True).start()
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
