# red-team: runs its own code at import through __init_subclass__, which Python calls on the base
# when a subclass is defined.
# The sandbox must: refuse it at the source check ("__init_subclass__, which runs when the class
# is subscripted or subclassed").
# Expected: source. Had it loaded, its import would print "REDTEAM-PROBE import_init_subclass:
# ESCAPE ..." in every call's log.
import sys

import torch


class Base:
    def __init_subclass__(cls, **kwargs):
        print("REDTEAM-PROBE import_init_subclass: ESCAPE __init_subclass__ ran at import",
              file=sys.stderr, flush=True)
        super().__init_subclass__(**kwargs)


class Derived(Base):
    pass


def method(train_x, train_y, test_x):
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
