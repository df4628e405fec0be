# red-team: hangs at import: a getter under stacked @classmethod @property (called by the attribute
# read at module level) that never returns.
# The sandbox must: refuse it at the source check; were it loaded, the load's deadline (import_s,
# 180 s) must end it.
# Expected: source. (The checker of 8de1f13 let it through; the run then ended with timeout,
# the load's deadline, after 180 s.)
import torch


class Forever:
    @classmethod
    @property
    def spin(cls):
        while True:
            pass


SPIN = Forever.spin


def method(train_x, train_y, test_x):
    return torch.zeros(test_x.shape[0], dtype=torch.int64, device=test_x.device)
