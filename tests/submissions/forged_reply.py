# red-team: writes a reply frame of its own to the worker's reply pipe (fd 4), whole but with JSON that is no object, ahead of the worker's reply; the parent reads it as the worker's, a malformed frame; expected: crash
import os

import torch


def method(train_x, train_y, test_x):
    body = b"[1, 2]"
    # The header: magic "RCT1", the JSON's length, no payload (little-endian uint32s).
    os.write(4, b"RCT1" + len(body).to_bytes(4, "little") + bytes(4) + body)
    return torch.zeros(test_x.shape[0], dtype=torch.int64, device=test_x.device)
