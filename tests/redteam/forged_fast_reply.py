# red-team: in its timed call, labels the test rows (as ncm.py), then writes a whole, well-formed
# reply frame of its own to the reply pipe (fd 4) ahead of the worker's: {"ok": true, "ms": 0.001,
# ...} with the labels as payload, claiming the call took a microsecond.
# The sandbox must: not be able to stop this (the method runs in the worker's own process, which
# holds fd 4); the parent's own clock must: the reported time is floored by what the parent
# measured, and the gap breaks the timing rules.
# Expected: timing-group (and the ranked time "floored by the scorer's clock"); crash is as right
# if the parent refuses the forged frame's clocks.
import os
import time

import torch

calls = 0


def method(train_x, train_y, test_x):
    global calls
    calls += 1  # 1: the warm-up, 2: the timed call
    started = time.monotonic_ns()
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    labels = ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
    if calls == 2:
        now = time.monotonic_ns()
        body = ('{"ok": true, "ms": 0.001, "wall_ms": 0.001, "clock_ns": {"received": %d, '
                '"started": %d, "ended": %d, "replying": %d}, "input_ptrs": {"train_x": %d, '
                '"train_y": %d, "test_x": %d}}' % (started, started, started + 1000, now,
                                                  train_x.data_ptr(), train_y.data_ptr(),
                                                  test_x.data_ptr())).encode()
        payload = labels.to(torch.uint8).cpu().numpy().tobytes()
        header = b"RCT1" + len(body).to_bytes(4, "little") + len(payload).to_bytes(4, "little")
        frame = header + body + payload
        while frame:
            frame = frame[os.write(4, frame):]
    return labels
