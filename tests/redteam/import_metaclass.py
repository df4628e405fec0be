# red-team: runs its own code at import through a metaclass (class Thing(metaclass=Meta)): Python
# calls Meta.__new__ while the class statement runs.
# The sandbox must: refuse it at the source check ("a class with keywords or computed bases").
# Expected: source. Had it loaded, its import would print "REDTEAM-PROBE import_metaclass: ESCAPE ..."
# in every call's log.
import sys

import torch


class Meta(type):
    def __new__(mcs, name, bases, namespace):
        print("REDTEAM-PROBE import_metaclass: ESCAPE a metaclass ran at import", file=sys.stderr,
              flush=True)
        return super().__new__(mcs, name, bases, namespace)


class Thing(metaclass=Meta):
    pass


def method(train_x, train_y, test_x):
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
