# red-team: runs its own code at import through an Enum subclass: enum's metaclass builds every
# member while the class statement runs, calling the class's own __new__ and __init__ (no call
# appears in the source; class-level dunder methods other than the four hooks pass the rules).
# The sandbox must: refuse it at the source check (an enum.Enum base hands the class's code to a
# metaclass).
# Expected: source. Had it loaded, its import would print "REDTEAM-PROBE import_enum_new: ESCAPE ..."
# in every call's log.
import enum
import sys

import torch


class Color(enum.Enum):
    def __new__(cls, value):
        print("REDTEAM-PROBE import_enum_new: ESCAPE Enum.__new__ ran at import", file=sys.stderr,
              flush=True)
        member = object.__new__(cls)
        member._value_ = value
        return member

    def __init__(self, value):
        print("REDTEAM-PROBE import_enum_new: ESCAPE Enum.__init__ ran at import", file=sys.stderr,
              flush=True)

    RED = 1


def method(train_x, train_y, test_x):
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
