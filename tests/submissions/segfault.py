# red-team: reads address 8 through ctypes in the method, killing the worker with SIGSEGV; expected: crash
import ctypes


def method(train_x, train_y, test_x):
    return ctypes.c_char.from_address(8).value
