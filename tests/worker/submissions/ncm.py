"""Test submission: nearest class mean, the smallest method that learns a draw."""
import torch


def method(train_x, train_y, test_x):
    sums = torch.zeros(10, train_x.shape[1], device=train_x.device).index_add_(0, train_y, train_x)
    counts = torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)
    means = sums / counts[:, None]
    return ((means * means).sum(1) - 2 * test_x @ means.T).argmin(1)
