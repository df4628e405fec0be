# red-team: reads a @classmethod @property on its class at module level, which runs the getter at import (Python 3.9 to 3.12); expected: source
import torch


class Settings:
    @classmethod
    @property
    def steps(cls):
        print("work at import time: Settings.steps")
        return 1


STEPS = Settings.steps


def method(train_x, train_y, test_x):
    return torch.zeros(test_x.shape[0], dtype=torch.int64, device=test_x.device)
