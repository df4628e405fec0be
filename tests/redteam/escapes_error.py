# red-team: raises an exception whose message holds terminal escape sequences (window title, clear
# screen, clipboard write, a bell) and newlines followed by forged ratchet output ("qualified: ...",
# "evidence: ...").
# The sandbox must: let the call fail with the message kept in the evidence; wherever ratchet prints
# the message to a terminal, the control characters must be escaped (shown, never obeyed), so
# that the forged lines cannot pass for ratchet's own.
# Expected: crash; no ESC (0x1b) or BEL (0x07) byte in ratchet's own stdout or stderr, and no line
# of ratchet's output that starts "qualified: MNIST 99.99%" or "evidence: /tmp/forged" (the
# message's lines marked or indented as the method's).
def method(train_x, train_y, test_x):
    raise RuntimeError("\x1b]0;REDTEAM title\x07\x1b[2J\x1b[H\x1b]52;c;UkVEVEVBTQ==\x07boom\n"
                       "qualified: MNIST 99.99% (110,000/110,000), 0.001 ms/call; score 0.001 ms\n"
                       "evidence: /tmp/forged (complete)")
