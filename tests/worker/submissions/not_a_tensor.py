"""Test submission: returns a list, not a tensor."""


def method(train_x, train_y, test_x):
    return [0] * test_x.shape[0]
