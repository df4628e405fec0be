# red-team: looks for the workers of later calls (started ahead, each as its own uid, in its own PID namespace: none is in sight), tries to signal them and to open their memory, environment and descriptors, and checks that they are stopped during its timed call; raises if any of that fails; expected: scored like ncm.py
import os

import torch

WORKER_UIDS = (65527, 65528, 65529, 65530, 65531, 65532, 65533, 65534)
calls = 0


def read(path):
    with open(path) as handle:
        return handle.read()


def exiting(pid):
    # PF_EXITING in the flags (field 9) of /proc/PID/stat: a worker of an earlier call dying.
    text = read(f"/proc/{pid}/stat")
    return int(text[text.rfind(")") + 2:].split()[6]) & 0x4 != 0


def other_workers():
    mine, found = os.getuid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            uid = int(next(line for line in read(f"/proc/{name}/status").splitlines()
                           if line.startswith("Uid:")).split()[1])
            if uid in WORKER_UIDS and uid != mine and not exiting(name):
                found.append(int(name))
        except (OSError, StopIteration, ValueError):
            continue  # gone meanwhile
    return found


def thread_states(pid):
    states = set()
    for tid in os.listdir(f"/proc/{pid}/task"):
        text = read(f"/proc/{pid}/task/{tid}/stat")
        states.add(text[text.rfind(")") + 2])
    return states


def reached(pid):
    what = []
    try:
        os.kill(pid, 0)
        what.append("signal")
    except OSError:
        pass
    for name in ("mem", "environ"):
        try:
            open(f"/proc/{pid}/{name}", "rb").close()
            what.append(name)
        except OSError:
            pass
    try:
        os.listdir(f"/proc/{pid}/fd")
        what.append("fd")
    except OSError:
        pass
    return what


def method(train_x, train_y, test_x):
    global calls
    calls += 1  # 1: the warm-up, 2: the timed call
    others = other_workers()
    for pid in others:
        if reached(pid):
            raise RuntimeError(f"reached the worker {pid}: {reached(pid)}")
    states = {pid: "".join(sorted(thread_states(pid))) for pid in others}
    if calls == 2 and any(set(s) - set("TtZX") for s in states.values()):
        raise RuntimeError(f"a worker of a later call runs during the timed call: {states}")
    print(f"call {calls}: {len(others)} other workers, none reachable, thread states {sorted(states.values())}")
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
