"""Test submission: prints a line, then raises."""


def method(train_x, train_y, test_x):
    print("the test submission is about to throw", flush=True)
    raise ValueError("deliberate failure of the test submission")
