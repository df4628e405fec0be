# red-team: from its timed call on, a thread and a forked child keep printing the clock, to run on after the call; expected: scored like ncm.py, both stopped before the next calibration and killed
import os
import threading
import time

import torch

calls = 0


def tick(who, started):
    print(f"tick {who} {time.monotonic_ns()}", flush=True)
    os.write(started, b"x")  # the first tick is printed: the timed call may return
    while True:
        time.sleep(0.001)
        print(f"tick {who} {time.monotonic_ns()}", flush=True)


def method(train_x, train_y, test_x):
    global calls
    calls += 1  # 1: the warm-up, 2: the timed call
    if calls == 2:
        # The call returns only once both have started: on a loaded machine a child not yet
        # scheduled when the worker is stopped would print nothing, and prove nothing.
        read_end, write_end = os.pipe()
        if os.fork() == 0:
            os.close(read_end)
            tick("child", write_end)
        threading.Thread(target=tick, args=("thread", write_end), daemon=True).start()
        started = b""
        while len(started) < 2:
            started += os.read(read_end, 2 - len(started))
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
