"""A minimal parent for worker.py in tests: starts it with fds 3/4/5 in place and speaks frames.

The worker is started through a small trampoline (`python3 -c`) that moves the inherited pipe and
buffer fds to 3, 4 and 5 and then execs worker.py, as ratchet's parent does between fork and
exec. The input buffer is a memfd the test writes; the worker gets a read-only reopening of it.
"""

import fcntl
import json
import math
import mmap
import os
import select
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("RATCHET_SOURCE_DIR", Path(__file__).resolve().parents[2]))
WORKER = SOURCE_DIR / "runner" / "worker" / "worker.py"
MAGIC = 0x31544352
HEADER = struct.Struct("<III")

TRAMPOLINE = """
import fcntl, os, sys
sources = [int(fd) for fd in sys.argv[1:4]]
high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100) for fd in sources]
for fd in sources:
    os.close(fd)
for target, fd in enumerate(high, start=3):
    os.dup2(fd, target)
os.execv(sys.executable, [sys.executable] + sys.argv[4:])
"""


def buffer_bytes(train, test, dims):
    return train * dims * 4 + train * 8 + test * dims * 4


class WorkerProcess:
    """One worker.py with its pipes, its input buffer and its log."""

    def __init__(self, train=64, test=32, dims=60, log=None, python=sys.executable):
        self.train, self.test, self.dims = train, test, dims
        self.size = buffer_bytes(train, test, dims)
        self.memfd = os.memfd_create("ratchet-test-inputs", os.MFD_CLOEXEC)
        os.ftruncate(self.memfd, self.size)
        self.buffer = mmap.mmap(self.memfd, self.size)
        readonly = os.open(f"/proc/self/fd/{self.memfd}", os.O_RDONLY | os.O_CLOEXEC)
        command_read, self.command_write = os.pipe2(os.O_CLOEXEC)
        self.reply_read, reply_write = os.pipe2(os.O_CLOEXEC)
        fds = (command_read, reply_write, readonly)
        self.log = log if log is not None else open(os.devnull, "wb")
        try:
            self.proc = subprocess.Popen(
                [python, "-c", TRAMPOLINE, *map(str, fds), str(WORKER)], pass_fds=fds,
                stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                start_new_session=True)
        finally:
            for fd in fds:
                os.close(fd)

    # -- frames ----------------------------------------------------------------------------------

    def send_raw(self, data):
        os.write(self.command_write, data)

    def send(self, command, magic=MAGIC, payload_length=0):
        body = json.dumps(command).encode() if isinstance(command, dict) else command
        self.send_raw(HEADER.pack(magic, len(body), payload_length) + body)

    def read_exact(self, count, deadline):
        data = b""
        while len(data) < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.reply_read], [], [], remaining)[0]:
                raise TimeoutError(f"no reply within the deadline ({len(data)}/{count} bytes)")
            chunk = os.read(self.reply_read, count - len(data))
            if not chunk:
                raise EOFError(f"the worker closed its reply pipe ({len(data)}/{count} bytes)")
            data += chunk
        return data

    def reply(self, timeout=120.0):
        """(reply dict, payload bytes), checking the frame as the parent does."""
        deadline = time.monotonic() + timeout
        magic, json_length, payload_length = HEADER.unpack(self.read_exact(HEADER.size, deadline))
        if magic != MAGIC or not 1 <= json_length <= 1 << 16 or payload_length > 1 << 20:
            raise ValueError(f"malformed reply header {magic:#x} {json_length} {payload_length}")
        reply = json.loads(self.read_exact(json_length, deadline))
        if not isinstance(reply, dict):  # the JSON's fault first, before the payload's
            raise ValueError(f"reply is not an object: {reply!r}")
        payload = self.read_exact(payload_length, deadline) if payload_length else b""
        return reply, payload

    def request(self, command, timeout=120.0):
        self.send(command)
        return self.reply(timeout)

    # -- commands --------------------------------------------------------------------------------

    def hello(self):
        return self.request({"cmd": "hello", "train": self.train, "test": self.test,
                             "dims": self.dims, "buffer_bytes": self.size})

    def load(self, path, function="method"):
        return self.request({"cmd": "load", "path": str(path), "function": function})

    def write_inputs(self, train_x, train_y, test_x):
        """Arrays of any kind convertible by struct: lists of floats / ints, row-major."""
        data = (struct.pack(f"<{len(train_x)}f", *train_x) + struct.pack(f"<{len(train_y)}q", *train_y)
                + struct.pack(f"<{len(test_x)}f", *test_x))
        assert len(data) == self.size
        self.buffer[:] = data

    def go(self, null=False, timeout=120.0):
        return self.request({"cmd": "go", "null": null}, timeout)

    # -- ending ----------------------------------------------------------------------------------

    def close_commands(self):
        if self.command_write is not None:
            os.close(self.command_write)
            self.command_write = None

    def wait(self, timeout=30.0):
        return self.proc.wait(timeout)

    def kill(self):
        """SIGKILL to the worker's whole process group, as the parent does after every call."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(30)

    def close(self):
        self.close_commands()
        if self.proc.poll() is None:
            self.kill()
        os.close(self.reply_read)
        self.buffer.close()
        os.close(self.memfd)
        if self.log is not None and not self.log.closed:
            self.log.close()


def session_members(sid):
    """Live (not zombie) processes whose session id is `sid`."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z" and int(fields[3]) == sid:
            members.append(int(entry))
    return members


def separable_draw(train, test, dims, seed=5):
    """Inputs whose classes nearest class mean separates exactly: class c sits at 10 * e_c plus
    small noise. Returns (train_x, train_y, test_x, test_y) as flat lists."""
    state = seed

    def noise():
        nonlocal state
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return ((state >> 11) / float(1 << 53) - 0.5) * 0.2

    def rows(labels):
        flat = []
        for label in labels:
            flat += [(10.0 if k == label else 0.0) + noise() for k in range(dims)]
        return flat

    train_y = [i % 10 for i in range(train)]
    test_y = [(3 * i + 1) % 10 for i in range(test)]
    return rows(train_y), train_y, rows(test_y), test_y


def finite(value):
    return isinstance(value, (int, float)) and math.isfinite(value)
