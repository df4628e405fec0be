"""Nearest class means through torch.compile, compiled in the warm-up inside the sandbox:
inductor needs a C compiler, Triton and a writable cache in the worker's view.
scripts/gpu-test expects it to qualify."""
import functools

import torch


def nearest_class_means(train_x, train_y, test_x):
    onehot = (train_y[:, None] == torch.arange(10, device=train_y.device)).float()
    means = (onehot.t() @ train_x) / onehot.sum(0).clamp_min(1)[:, None]
    return (means.pow(2).sum(1) - 2 * test_x @ means.t()).argmin(1)


@functools.cache
def compiled():
    return torch.compile(nearest_class_means, dynamic=False)


def method(train_x, train_y, test_x):
    return compiled()(train_x, train_y, test_x)
