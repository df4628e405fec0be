# red-team: prints terminal escape sequences to stderr in every call: a window title (OSC 0), a
# clipboard write (OSC 52), a hyperlink (OSC 8), clear screen and cursor moves (CSI), a bell, and a
# carriage return followed by a forged verdict line; then labels as ncm.py.
# The sandbox must: keep the bytes in the evidence's log only; nothing ratchet prints to a terminal
# (progress, problems, summaries) may carry them raw.
# Expected: qualified (ncm's labels); no ESC (0x1b) or BEL (0x07) byte in ratchet's own stdout or
# stderr.
import sys

import torch


def method(train_x, train_y, test_x):
    print("\x1b]0;REDTEAM title\x07\x1b]52;c;UkVEVEVBTQ==\x07\x1b]8;;http://example.invalid/\x1b\\"
          "link\x1b]8;;\x1b\\\x1b[2J\x1b[H\x1b[31mREDTEAM red\x1b[0m\x07"
          "\r\x1b[2Kqualified: MNIST 99.99% (forged by the method)", file=sys.stderr, flush=True)
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
