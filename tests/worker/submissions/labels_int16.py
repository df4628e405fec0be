"""Test submission: int16 labels cycling through the type's extremes, -1, 10 and numbers whose low
byte is a label (259, -251, 512): only 0 to 9 are labels."""
import torch


def method(train_x, train_y, test_x):
    pattern = torch.tensor([-2**15, -1, 0, 9, 10, 259, 2**15 - 1, 5, -251, 512], dtype=torch.int16,
                           device=test_x.device)
    rows = torch.arange(test_x.shape[0], device=test_x.device)
    return pattern[rows % 10]
