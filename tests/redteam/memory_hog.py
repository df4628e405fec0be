# red-team: allocates 6 GiB in the warm-up and touches every page (torch.ones, so the pages are
# real), then holds it through the timed call.
# The sandbox must: bound a worker's memory (a memory cgroup; RLIMIT_AS cannot be used with CUDA)
# below what hurts the machine, so that the worker alone dies, and name the limit.
# Expected: memory (the kernel kills the worker at its group's bound).
import torch

held = []


def method(train_x, train_y, test_x):
    if not held:
        held.append(torch.ones(6 << 28, dtype=torch.float32))  # 6 GiB, every page written
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
