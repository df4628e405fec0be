# red-team: patches the clocks inside the worker from its warm-up on: time.perf_counter,
# perf_counter_ns, monotonic, monotonic_ns, time and process_time run a thousand times slower, and
# so do the names the Python worker captured before importing the method (__main__.perf_counter;
# __main__.Event, the CUDA events it times with on a GPU, is replaced by one that reports a
# microsecond), so that the worker reports a timed call of (nearly) zero ms. Then labels as ncm.py.
# The sandbox must: not be able to stop this (it is the method's own process); the parent's clock
# must: the reported time is floored by what the parent measured and the gap breaks the timing
# rules.
# Expected: timing-group (and the ranked time "floored by the scorer's clock").
import sys
import time

import torch

calls = 0


class Frozen:
    """A stand-in for torch.cuda.Event whose elapsed time is always a microsecond."""

    def __init__(self, *args, **kwargs):
        pass

    def record(self, *args, **kwargs):
        pass

    def elapsed_time(self, other):
        return 0.001

    def synchronize(self):
        pass


class Clocks:
    @staticmethod
    def slowed(clock, scale=1000):
        """`clock` running `scale` times slower from now on (continuous now, so that the call that
        straddles the patch measures no negative time)."""
        start = clock()
        return lambda: start + (clock() - start) / scale if isinstance(start, float) else \
            start + (clock() - start) // scale

    @staticmethod
    def patch():
        for name in ("perf_counter", "monotonic", "time", "process_time", "perf_counter_ns",
                     "monotonic_ns", "time_ns", "process_time_ns"):
            setattr(time, name, Clocks.slowed(getattr(time, name)))
        worker = sys.modules.get("__main__")
        if worker is not None:
            if hasattr(worker, "perf_counter"):
                worker.perf_counter = Clocks.slowed(worker.perf_counter)
            if hasattr(worker, "Event"):
                worker.Event = Frozen
        print("REDTEAM-NOTE patched_clocks: slowed time.* a thousandfold and replaced the worker's "
              f"captured clocks ({getattr(worker, '__file__', '?')})", file=sys.stderr, flush=True)


def method(train_x, train_y, test_x):
    global calls
    calls += 1
    if calls == 1:
        Clocks.patch()
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
