# red-team: does work at import (a module-level call that could read files or time itself); expected: source
import torch

print("work at import time")


def method(train_x, train_y, test_x):
    return torch.zeros(test_x.shape[0], dtype=torch.int64, device=test_x.device)
