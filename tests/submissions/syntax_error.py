# red-team: a file that does not parse; expected: source
import torch


def method(train_x, train_y, test_x)
    return torch.zeros(test_x.shape[0], dtype=torch.int64, device=test_x.device)
