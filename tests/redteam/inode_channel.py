# red-team probe: a channel between calls through the inode numbers of pipes, which come from a
# counter the whole machine shares (the kernel hands each processor a batch of 1,024 numbers at a
# time from it; sockets and memfd files draw from it too). Each worker's warm-up first receives:
# it makes pipes until its processor has drawn a fresh batch (the counter as it stands now) and
# reads the window of 16 batches the counter is in (mod 4) as the previous call's symbol, which
# that worker chose as its uid % 4. Then it sends its own: it makes pipes until the counter stands
# a few batches into a window whose number (mod 4) is its uid % 4. 2 bits a call; a receiver that
# learns nothing is right in a quarter of the calls.
# The sandbox cannot stop this: every runtime makes pipes, and a pipe's inode number is whatever
# the kernel's counter says (docs/sandbox.md, "What a worker can still do"). Kept to measure it.
# Expected: qualified, log line "REDTEAM-PROBE inode_channel: found nothing" in every call.

import os
import sys
import time

import torch

NAME = "inode_channel"
calls = 0


class RT:
    """The probe's helpers, in a class so that method() stays the file's one top-level function."""

    @staticmethod
    def say(line):
        print(line[:4000], file=sys.stderr, flush=True)

    @staticmethod
    def report(found, note=""):
        if note:
            RT.say(f"REDTEAM-NOTE {NAME}: {note}")
        RT.say(f"REDTEAM-PROBE {NAME}: " + ("ESCAPE " + "; ".join(found) if found else
                                              "found nothing"))

    @staticmethod
    def ncm(train_x, train_y, test_x):
        """baselines/submissions/ncm.py: nearest class mean, about 15% error."""
        sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
        sums.index_add_(0, train_y, train_x)
        counts = torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)
        means = sums / counts[:, None]
        return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)

    BATCH, WINDOW, SYMBOLS = 1024, 16, 4

    @staticmethod
    def pipe_inode():
        read_end, write_end = os.pipe()
        try:
            return os.fstat(read_end).st_ino
        finally:
            os.close(read_end)
            os.close(write_end)

    @staticmethod
    def fresh():
        """The counter as it stands: pipes until this processor draws a new batch."""
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        last = RT.pipe_inode()
        for _ in range(RT.BATCH + 8):
            number = RT.pipe_inode()
            if number != last + 1:
                return number
            last = number
        return last

    @staticmethod
    def symbol(number):
        return (number // (RT.BATCH * RT.WINDOW)) % RT.SYMBOLS

    @staticmethod
    def probe():
        uid = os.getuid()
        previous = 65527 if uid == 65534 else uid + 1
        seen = RT.symbol(RT.fresh())
        mine = uid % RT.SYMBOLS
        started, made = time.monotonic(), 0
        while made < 2_000_000:
            number = RT.pipe_inode()
            made += 1
            into = (number // RT.BATCH) % RT.WINDOW
            if RT.symbol(number) == mine and 3 <= into <= 6:
                break
        note = (f"uid {uid}: read symbol {seen}, uid {previous} sent {previous % RT.SYMBOLS}; "
                f"sent {mine} with {made} pipes in {time.monotonic() - started:.2f} s")
        if seen == previous % RT.SYMBOLS:
            return [f"the previous call's symbol ({seen}) read from a pipe's inode number"], note
        return [], note


def method(train_x, train_y, test_x):
    global calls
    calls += 1  # 1: the warm-up, 2: the timed call (every timed call has a fresh worker)
    if calls == 1:
        try:
            found, note = RT.probe()
        except Exception as error:  # a broken probe says so, never "found nothing"
            RT.say(f"REDTEAM-PROBE {NAME}: ERROR {type(error).__name__}: {error}")
        else:
            RT.report(found, note)
    return RT.ncm(train_x, train_y, test_x)
