"""Nearest class means whose last step is a Triton kernel, compiled in the warm-up inside the
sandbox: Triton's compiler, ptxas and a writable cache must be in the worker's view.
scripts/gpu-test expects it to qualify."""
import functools

import torch


@functools.cache
def negate_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def negate(src, dst, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(dst + offsets, -tl.load(src + offsets, mask=mask), mask=mask)

    return negate


def method(train_x, train_y, test_x):
    onehot = (train_y[:, None] == torch.arange(10, device=train_y.device)).float()
    means = (onehot.t() @ train_x) / onehot.sum(0).clamp_min(1)[:, None]
    distances = (means.pow(2).sum(1) - 2 * test_x @ means.t()).contiguous()
    scores = torch.empty_like(distances)
    n = distances.numel()
    negate_kernel()[((n + 1023) // 1024,)](distances, scores, n, BLOCK=1024)
    return scores.argmax(1)
