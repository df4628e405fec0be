# red-team: returns float32 labels instead of an integer dtype; expected: output
import torch


def method(train_x, train_y, test_x):
    return torch.zeros(test_x.shape[0], dtype=torch.float32, device=test_x.device)
