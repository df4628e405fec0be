"""Test submission: a strided (every other element) int32 view whose values include the type's
extremes, negatives and numbers whose low byte is a label: only 0 to 9 are labels."""
import torch


def method(train_x, train_y, test_x):
    pattern = torch.tensor([-2**31, -1, 0, 9, 10, 259, 2**31 - 1, 5], dtype=torch.int32,
                           device=test_x.device)
    rows = torch.arange(2 * test_x.shape[0], device=test_x.device)
    return pattern[(rows // 2) % 8][::2]
