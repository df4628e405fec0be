"""Test submission: int32 labels 0, 1, ..., 20, 0, 1, ...: those above 9 are not labels."""
import torch


def method(train_x, train_y, test_x):
    return torch.arange(test_x.shape[0], dtype=torch.int32, device=test_x.device) % 21
