"""Test submission: int64 labels 0 to 9, but for two values whose lowest byte is a label and whose
other bytes are not all zero (2**40 + 3 at row 4999, -254 at the last row): only 0 to 9 are
labels, and a value must be read whole even when every other value is a label."""
import torch


def method(train_x, train_y, test_x):
    rows = test_x.shape[0]
    out = torch.arange(rows, device=test_x.device) % 10
    out[4999] = 2**40 + 3
    out[rows - 1] = -254
    return out
