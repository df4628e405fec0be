# red-team: returns a Python list instead of a tensor; expected: output
def method(train_x, train_y, test_x):
    return [0] * test_x.shape[0]
