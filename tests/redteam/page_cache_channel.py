# red-team probe: a channel between calls through the page cache, which every process of the
# machine shares. A large library file that every worker's view binds read-only (one no method
# loads) is cut into 8 sets of 32 pages 256 KiB apart, one set per worker uid. Each worker's
# warm-up first receives: it asks which pages of the previous call's worker's set are resident
# (preadv2 with RWF_NOWAIT, else the time one read takes: a page read from the disk takes far
# longer than one in memory) and compares them with the 32 bits that worker sends (the bits of
# sha256 of its uid, which the receiver can compute). Then it sends its own: it evicts each page
# of its set (posix_fadvise DONTNEED) and reads those whose bit is 1, then maps the file and
# touches the same pages, keeping the mapping until its worker is killed. A receiver that learns
# nothing gets as many bits right as a constant guess (the message's count of its likelier bit);
# more than 1 bit beyond that is a channel.
# The sandbox must: refuse asking the page cache (preadv2 RWF_NOWAIT, mincore, cachestat) and
# evicting pages (fadvise DONTNEED, madvise PAGEOUT/COLD), and drop from the page cache what a
# call's processes read once they are gone, before a later method runs (docs/sandbox.md, "The
# page cache"), so that a page one call read is as cold for the next as before.
# Expected: qualified, log line "REDTEAM-PROBE page_cache_channel: found nothing" in every call.

import errno
import glob
import hashlib
import mmap
import os
import sys
import time

import torch

NAME = "page_cache_channel"
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

    BITS, STRIDE, PAGE = 32, 256 << 10, 4096
    held = None  # the sender's mapping, alive until the worker is killed

    @staticmethod
    def carrier():
        """The largest library of the view that no method loads (not torch's, not Python's)."""
        found = [path for path in glob.glob("/usr/lib/x86_64-linux-gnu/*.so*")
                 if "torch" not in path and "python" not in path and os.path.isfile(path)]
        return max(sorted(found), key=os.path.getsize)

    @staticmethod
    def message(uid):
        digest = hashlib.sha256(str(uid).encode()).digest()
        return [(digest[i // 8] >> (i % 8)) & 1 for i in range(RT.BITS)]

    @staticmethod
    def offset(uid, bit):
        return ((uid % 8) * RT.BITS + bit) * RT.STRIDE

    @staticmethod
    def resident(fd, offset):
        """(resident, how it was asked)."""
        try:
            os.preadv(fd, [bytearray(1)], offset, os.RWF_NOWAIT)
            return True, "RWF_NOWAIT"
        except BlockingIOError:
            return False, "RWF_NOWAIT"
        except OSError as error:
            if error.errno not in (errno.EOPNOTSUPP, errno.ENOSYS, errno.EPERM):
                raise
        started = time.perf_counter_ns()
        os.pread(fd, 1, offset)
        return time.perf_counter_ns() - started < 20000, "read timing"

    @staticmethod
    def probe():
        uid = os.getuid()
        previous = 65527 if uid == 65534 else uid + 1
        path = RT.carrier()
        fd = os.open(path, os.O_RDONLY)
        try:
            if os.fstat(fd).st_size < 8 * RT.BITS * RT.STRIDE:
                return [], f"{path} is too small to carry 8 sets"
            got, how = [], set()
            for bit in range(RT.BITS):
                seen, asked = RT.resident(fd, RT.offset(previous, bit))
                got.append(int(seen))
                how.add(asked)
            sent = RT.message(previous)
            right = sum(a == b for a, b in zip(got, sent))
            guess = max(sum(sent), RT.BITS - sum(sent))
            evicted = 0
            for bit, value in enumerate(RT.message(uid)):
                try:
                    os.posix_fadvise(fd, RT.offset(uid, bit), RT.STRIDE, os.POSIX_FADV_DONTNEED)
                    evicted += 1
                except OSError:
                    pass
                if value:
                    os.pread(fd, 1, RT.offset(uid, bit))
            # The same pages mapped and touched, the mapping kept until the worker is killed: a
            # page mapped by a process that is exiting is the hardest for the parent to drop.
            RT.held = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
            for bit, value in enumerate(RT.message(uid)):
                if value:
                    RT.held[RT.offset(uid, bit)]
        finally:
            os.close(fd)
        note = (f"uid {uid}: {right} of {RT.BITS} bits of uid {previous} right through "
                f"{sorted(how)} in {os.path.basename(path)} (a constant guess: {guess}; "
                f"{sum(got)} pages read resident); {evicted} of {RT.BITS} pages of its own "
                f"evicted")
        if right > guess + 1:
            return [f"{right} of {RT.BITS} bits from the previous call's worker, "
                    f"{right - guess} beyond a constant guess"], note
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
