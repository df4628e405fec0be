"""Nearest class means returned as int64, with every 50th row set to a value whose lowest byte is a
label and whose other bytes are not all zero (2**40 + 3, or -254 in every other such row). The
labels step compares each value whole: scripts/gpu-test expects byte 255 at every 50th row of
each call's labels and the nearest class mean's labels (0 to 9, most of them correct) everywhere
else."""
import torch


def method(train_x, train_y, test_x):
    onehot = (train_y[:, None] == torch.arange(10, device=train_y.device)).float()
    means = (onehot.t() @ train_x) / onehot.sum(0).clamp_min(1)[:, None]
    labels = (means.pow(2).sum(1) - 2 * test_x @ means.t()).argmin(1)
    labels[::100] = 2**40 + 3
    labels[50::100] = -254
    return labels
