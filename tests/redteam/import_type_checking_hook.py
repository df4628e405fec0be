# red-team: hides the class hooks the source rules refuse (__init_subclass__, __class_getitem__)
# inside `if TYPE_CHECKING:` in a class body, with TYPE_CHECKING bound to True by the file itself:
# the rules check such a block "like the rest", but the check that refuses the hooks by name looks
# only at a class body's direct children. Defining a subclass and subscripting the class then run
# them at import.
# The sandbox must: refuse it at the source check.
# Expected: source. Had it loaded, its import would print "REDTEAM-PROBE import_type_checking_hook:
# ESCAPE ..." lines in every call's log.
import sys

import torch

TYPE_CHECKING = True


class Base:
    if TYPE_CHECKING:
        def __init_subclass__(cls, **kwargs):
            print("REDTEAM-PROBE import_type_checking_hook: ESCAPE __init_subclass__ ran at import",
                  file=sys.stderr, flush=True)

        def __class_getitem__(cls, item):
            print("REDTEAM-PROBE import_type_checking_hook: ESCAPE __class_getitem__ ran at import",
                  file=sys.stderr, flush=True)
            return cls


class Derived(Base):
    pass


ALIAS = Base[int]


def method(train_x, train_y, test_x):
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
