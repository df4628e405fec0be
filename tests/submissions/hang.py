# red-team: never returns (a busy loop in the method); expected: timeout
def method(train_x, train_y, test_x):
    spins = 0
    while True:
        spins += 1
