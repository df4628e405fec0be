# red-team: runs its own code at import through an allow-listed decorator factory given a lambda
# (a "static" argument under the reference rules): functools.lru_cache(f) takes a callable as the
# function to cache, so applying the result to the def calls the lambda while the file loads.
# The sandbox must: refuse it at the source check (a decorator's arguments must be plain data).
# Expected: source. Had it loaded, its import would print "REDTEAM-PROBE import_decorator_factory:
# ESCAPE ..." in every call's log.
import functools
import sys

import torch


@functools.lru_cache(lambda f: print("REDTEAM-PROBE import_decorator_factory: ESCAPE a lambda ran "
                                     "at import (lru_cache given a callable)", file=sys.stderr,
                                     flush=True) or f)
def method(train_x, train_y, test_x):
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
