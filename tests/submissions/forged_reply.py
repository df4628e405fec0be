# red-team: writes a reply frame of its own to the worker's reply pipe (fd 4), whole but with JSON that is no object, ahead of the worker's reply; the parent reads it as the worker's, a malformed frame; expected: crash
import os
import struct

import torch


def method(train_x, train_y, test_x):
    body = b"[1, 2]"
    os.write(4, struct.pack("<III", 0x31544352, len(body), 0) + body)  # "RCT1", lengths
    return torch.zeros(test_x.shape[0], dtype=torch.int64, device=test_x.device)
