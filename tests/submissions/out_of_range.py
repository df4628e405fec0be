# red-team: returns labels 10..19 (outside 0..9: every one becomes 255, none is correct); expected: accuracy, draw-floor, holdout
import torch


def method(train_x, train_y, test_x):
    return torch.arange(test_x.shape[0], device=test_x.device) % 10 + 10
