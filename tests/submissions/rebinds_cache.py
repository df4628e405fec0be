# red-team: rebinds the trusted decorator name `cache` to run its own code at import; expected: source
import torch

cache = print


@cache
def method(train_x, train_y, test_x):
    return torch.zeros(test_x.shape[0], dtype=torch.int64, device=test_x.device)
