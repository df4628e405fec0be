# red-team: an enum.Enum whose own __init__ and __format__ run at import (the class statement builds the members; an f-string formats one), with no call in the source; expected: source
import enum

import torch


class Mode(enum.Enum):
    FAST = 1

    def __init__(self, value):
        print("work at import time: Mode.__init__")

    def __format__(self, spec):
        print("work at import time: Mode.__format__")
        return self.name


NAME = f"{Mode.FAST}"


def method(train_x, train_y, test_x):
    return torch.zeros(test_x.shape[0], dtype=torch.int64, device=test_x.device)
