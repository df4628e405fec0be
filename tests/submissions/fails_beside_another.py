# red-team: fails its warm-up when it runs as the uid of a run's third call (65532) while the second call's worker (65533) runs beside it, as when the two warm up as a pair; expected: scored like ncm.py (alone it never fails; a pair's failure is never the method's, its call starts again alone)
import os

import torch

calls = 0


def running(uid):
    # A process of `uid` that is neither exiting (PF_EXITING), a zombie, nor stopped.
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as handle:
                status = handle.read()
            with open(f"/proc/{name}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue  # gone meanwhile
        uid_line = next((line for line in status.splitlines() if line.startswith("Uid:")), "")
        if not uid_line or int(uid_line.split()[1]) != uid:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if fields[0] in "ZXTt" or int(fields[6]) & 0x4:
            continue
        return True
    return False


def method(train_x, train_y, test_x):
    global calls
    calls += 1  # 1: the warm-up, 2: the timed call
    if calls == 1 and os.getuid() == 65532 and running(65533):
        raise RuntimeError("warmed up beside the worker of uid 65533")
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
