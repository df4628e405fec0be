# red-team: a fork bomb in the warm-up: every process forks without end, ignoring failures, while
# the worker's own process raises at its first failed fork.
# The sandbox must: bound the worker's processes (its control group's pids.max, sandbox.processes),
# so forks fail early and the machine stays usable; reap every process of the bomb after the call;
# and disqualify the method for reaching the limit.
# Expected: processes.
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
