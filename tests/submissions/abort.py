# red-team: calls os.abort() in the method, killing the worker with SIGABRT; expected: crash
import os


def method(train_x, train_y, test_x):
    os.abort()
