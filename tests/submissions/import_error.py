# red-team: imports a module that does not exist, so loading it fails; expected: import
import torch
import ratchet_no_such_module  # noqa: F401


def method(train_x, train_y, test_x):
    return torch.zeros(test_x.shape[0], dtype=torch.int64, device=test_x.device)
