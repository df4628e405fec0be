# red-team: raises an exception in the method; expected: crash
def method(train_x, train_y, test_x):
    raise RuntimeError("ratchet red-team: the method gave up")
