"""Nearest class means returned as a strided int8 view (every other element of a tensor twice as
long), with every 50th row set to -1, which is not a label. The labels step copies the output in
its own dtype; scripts/gpu-test expects byte 255 at every 50th row of each call's labels and the
nearest class mean's labels (0 to 9, most of them correct) everywhere else."""
import torch


def method(train_x, train_y, test_x):
    onehot = (train_y[:, None] == torch.arange(10, device=train_y.device)).float()
    means = (onehot.t() @ train_x) / onehot.sum(0).clamp_min(1)[:, None]
    labels = (means.pow(2).sum(1) - 2 * test_x @ means.t()).argmin(1).to(torch.int8)
    labels[::50] = -1
    doubled = torch.empty(2 * labels.shape[0], dtype=torch.int8, device=labels.device)
    doubled[::2] = labels
    doubled[1::2] = 7
    return doubled[::2]
