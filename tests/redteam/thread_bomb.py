# red-team: a thread bomb in the warm-up: starts sleeping threads until the interpreter cannot
# start another.
# NOT RUN on the development machine: without a bound it takes the machine's threads-max and PIDs.
# The sandbox must: bound the worker's tasks (RLIMIT_NPROC counts threads; or a pids cgroup).
# Expected: crash (the method raises RuntimeError: "can't start new thread").
import threading
import time


def method(train_x, train_y, test_x):
    while True:
        threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
