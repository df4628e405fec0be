# red-team: returns labels of shape (test, 1) instead of (test,); expected: output
import torch


def method(train_x, train_y, test_x):
    return torch.zeros(test_x.shape[0], 1, dtype=torch.int64, device=test_x.device)
