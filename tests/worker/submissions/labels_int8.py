"""Test submission: int8 labels, row i holding (i mod 256) - 128: every value of the type, of
which only 0 to 9 are labels."""
import torch


def method(train_x, train_y, test_x):
    rows = torch.arange(test_x.shape[0], device=test_x.device)
    return (rows % 256 - 128).to(torch.int8)
