# red-team: a fork bomb in the warm-up: every process forks without end, ignoring failures, while
# the worker's own process raises at its first failed fork.
# NOT RUN on the development machine: without a bound on processes it fills the machine's PID space.
# The sandbox must: bound the worker's processes (RLIMIT_NPROC per worker uid, or a pids cgroup),
# so forks fail early and the machine stays usable; reap every process of the bomb after the call.
# Expected: crash (the method raises BlockingIOError: "Resource temporarily unavailable").
import os
import time


def method(train_x, train_y, test_x):
    while True:
        pid = os.fork()  # raises in the worker at the first failure: the call fails
        if pid == 0:
            while True:  # a child never returns to the worker's code
                try:
                    os.fork()
                except OSError:
                    time.sleep(0.01)
