# red-team: a thread bomb in the warm-up: starts sleeping threads until the interpreter cannot
# start another.
# The sandbox must: bound the worker's tasks (its control group's pids.max counts threads too) and
# disqualify the method for reaching the limit.
# Expected: processes.
import threading
import time


def method(train_x, train_y, test_x):
    while True:
        threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
