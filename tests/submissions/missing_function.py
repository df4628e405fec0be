# red-team: defines predict() but the record names method(); expected: source
import torch


def predict(train_x, train_y, test_x):
    return torch.zeros(test_x.shape[0], dtype=torch.int64, device=test_x.device)
