"""A method that hides work on a side stream: its CUDA events see only the nearest class means,
while 40 products of 4096 x 4096 matrices run on another stream and are still running when it
returns. ratchet synchronizes the whole device before it stops the worker's clock, so the work is
counted there and in the parent's clock; scripts/gpu-test expects the calls to be caught."""
import torch


def method(train_x, train_y, test_x):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        a = torch.rand(4096, 4096, device=test_x.device)
        for _ in range(40):
            a = torch.tanh(a @ a)
    onehot = (train_y[:, None] == torch.arange(10, device=train_y.device)).float()
    means = (onehot.t() @ train_x) / onehot.sum(0).clamp_min(1)[:, None]
    return (means.pow(2).sum(1) - 2 * test_x @ means.t()).argmin(1)
