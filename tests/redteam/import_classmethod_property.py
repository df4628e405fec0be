# red-team: runs its own code at import with allowed constructs only: a getter under stacked
# @classmethod @property (Python 3.9-3.12 pass a classmethod's descriptor through, so reading the
# attribute on the class calls the getter), read by a plain module-level assignment.
# The sandbox must: refuse it at the source check (nothing the file defines may run while it loads).
# Expected: source. Had it loaded, its import would print "REDTEAM-PROBE import_classmethod_property:
# ESCAPE ..." in every call's log (and the run would qualify with ncm's labels).
import sys

import torch


class Sneak:
    @classmethod
    @property
    def ran(cls):
        print("REDTEAM-PROBE import_classmethod_property: ESCAPE a getter ran at import "
              "(classmethod over property, read at module level)", file=sys.stderr, flush=True)
        return 1


RAN = Sneak.ran


def method(train_x, train_y, test_x):
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
