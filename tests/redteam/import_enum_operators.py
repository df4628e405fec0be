# red-team: runs its own code at import through the instances an Enum hands out for free (a member
# is an instance of the file's class, reached by an attribute read): an operator (__add__), an
# f-string (__format__), a truth test (__bool__), a comparison (__lt__) and a default value, each a
# "static" expression the source rules allow at module level.
# The sandbox must: refuse it at the source check.
# Expected: source. Had it loaded, its import would print one "REDTEAM-PROBE import_enum_operators:
# ESCAPE ..." line per route in every call's log.
import enum
import sys

import torch


class Knob(enum.Enum):
    A = 1

    def __add__(self, other):
        print("REDTEAM-PROBE import_enum_operators: ESCAPE __add__ ran at import", file=sys.stderr,
              flush=True)
        return other

    def __format__(self, spec):
        print("REDTEAM-PROBE import_enum_operators: ESCAPE __format__ ran at import",
              file=sys.stderr, flush=True)
        return "a"

    def __bool__(self):
        print("REDTEAM-PROBE import_enum_operators: ESCAPE __bool__ ran at import", file=sys.stderr,
              flush=True)
        return True

    def __lt__(self, other):
        print("REDTEAM-PROBE import_enum_operators: ESCAPE __lt__ ran at import", file=sys.stderr,
              flush=True)
        return True


SUM = Knob.A + 1
TEXT = f"{Knob.A}"
TRUTH = Knob.A and 1
LESS = Knob.A < 2


def method(train_x, train_y, test_x, scale=Knob.A + 1.0):
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
