"""Probe: where the steps after a window (the labels and the reply) lose time after a method.

One process plays worker.py's go (inputs copied from pinned memory, the L2 flush, one
synchronization, events around the window, a whole-device synchronization), then times each
sub-step of the labels and reply steps; a forked reader spins on the reply pipe as the parent
does and records when the whole frame has arrived. Methods in the window: empty (zeros), rff
(baselines/submissions/rff_ridge.py), sleep (a device sleep kernel of about the rff time, the
host spinning in the synchronization), hostspin (the host busy for that long, the device idle).
Later runs added methods (chosen with $PROBE_METHODS): mmloop (products of two 4096 x 4096
matrices, as many as last about 13.5 ms: heavy device work from few launches), launches (2,000
tiny in-place adds: light device work from many launches), eigh (rff's eigendecomposition alone),
sleep0.25 ... sleep8 (a sleep kernel of that many ms); $PROBE_VARIANTS picks the variants,
$PROBE_TAG names the JSON. Each call also counts the process's running threads after it.
The last run added the variants p1 and p2: polling the end event, and every 50 us meanwhile a
4-byte copy from pinned memory (p1) or a one-element kernel (p2) on a side stream.
Variants of the wait at the window's end: w0 torch's synchronization alone, as worker.py does;
w1 polling the end event until it is done, then the synchronization; w2 the same with
time.sleep(0) between polls. Each measured call follows one empty call with the same variant,
as the worker's priming does. Usage: probe-post.py ROUNDS [auto|spin|yield|block] (the CUDA
scheduling flag set before the context is made; auto leaves torch's default).
(Its first run, probe-post-first.json, was of an earlier version without the flag and with
variants of the labels step instead: v0 as worker.py, v1 torch._C._cuda_synchronize called
directly, v2 one blocking cudaMemcpy through ctypes instead of copy_ and the synchronization; and
a gc.collect() without gc.freeze() before every call, which left every call's caches cold.)"""
import ctypes
import gc
import importlib.util
import json
import mmap
import os
import select
import statistics as st
import struct
import sys
import time

import torch

ns = time.monotonic_ns
dev = torch.device("cuda")
sync = torch.cuda.synchronize
csync = torch._C._cuda_synchronize
HEADER = struct.Struct("<III")
LOW_BYTES = bytes(range(10)) + b"\xff" * 246
INTEGER_TYPES = frozenset((torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8))

spec = importlib.util.spec_from_file_location("rff", "baselines/submissions/rff_ridge.py")
rff = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rff)

cudart = None
for line in open("/proc/self/maps"):
    if "libcudart" in line:
        cudart = ctypes.CDLL(line.split()[-1])
        break
if cudart is not None:
    cudart.cudaMemcpy.restype = ctypes.c_int
    cudart.cudaMemcpy.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
print("cudart:", cudart, flush=True)
MODE = sys.argv[2] if len(sys.argv) > 2 else "auto"
if MODE != "auto":
    cudart.cudaSetDeviceFlags.argtypes = (ctypes.c_uint,)
    print("cudaSetDeviceFlags", MODE, cudart.cudaSetDeviceFlags({"spin": 1, "yield": 2, "block": 4}[MODE]))

gen = torch.Generator().manual_seed(0)
host = [torch.rand(10000, 784, generator=gen).pin_memory(),
        torch.randint(0, 10, (10000,), generator=gen).pin_memory(),
        torch.rand(10000, 784, generator=gen).pin_memory()]
inputs = [torch.empty_like(h, device=dev) for h in host]
flush = torch.empty(256 << 18, dtype=torch.int32, device=dev)
raw = mmap.mmap(-1, 8 * 10000, flags=mmap.MAP_PRIVATE)
raw_t = torch.frombuffer(raw, dtype=torch.uint8)
print("register", int(torch.cuda.cudart().cudaHostRegister(raw_t.data_ptr(), 80000, 0)))
views = {}


def labels_from_raw(raw, width, rows):
    data = raw[:width * rows]
    if width == 1:
        return data.translate(LOW_BYTES)
    low = data[::width]
    whole = bytearray(width * rows)
    whole[::width] = low
    return low.translate(LOW_BYTES) if whole == data else None


def output_problem(out, test_x):
    if type(out) is not torch.Tensor:
        return "type"
    if tuple(out.shape) != (test_x.shape[0],):
        return "shape"
    if out.dtype not in INTEGER_TYPES:
        return "dtype"
    if out.device != test_x.device:
        return "device"
    return None


def empty(a, b, c):
    return torch.zeros(c.shape[0], dtype=torch.int64, device=c.device)


# About the rff method's time (13.5 ms): calibrated below.
SLEEP_CYCLES = [20_000_000]


def sleep(a, b, c):
    torch.cuda._sleep(SLEEP_CYCLES[0])
    return torch.zeros(c.shape[0], dtype=torch.int64, device=c.device)


def hostspin(a, b, c):
    end = time.perf_counter() + 0.0135
    while time.perf_counter() < end:
        pass
    return torch.zeros(c.shape[0], dtype=torch.int64, device=c.device)


MM = [None, 4]


def mmloop(a, b, c):
    # heavy device work from few launches: products of two 4096 x 4096 matrices
    for _ in range(MM[1]):
        torch.mm(MM[0], MM[0], out=MM[2])
    return torch.zeros(c.shape[0], dtype=torch.int64, device=c.device)


LAUNCHES = [2000]


def launches(a, b, c):
    # light device work from many launches: tiny in-place adds, about the host time of rff's
    x = torch.zeros(1, device=c.device)
    for _ in range(LAUNCHES[0]):
        x.add_(1)
    return torch.zeros(c.shape[0], dtype=torch.int64, device=c.device)


def eighonly(a, b, c):
    # rff's first library call alone: eigh of a 784 x 784 scatter
    torch.linalg.eigh(a.t().mm(a) / a.shape[0])
    return torch.zeros(c.shape[0], dtype=torch.int64, device=c.device)


METHODS = {"empty": empty, "rff": rff.method, "sleep": sleep, "hostspin": hostspin,
           "mmloop": mmloop, "launches": launches, "eigh": eighonly}
CYCLES_PER_MS = 1.97e6  # the H200's sleep kernel, measured by the runs before this one


def sleeper(ms):
    def method(a, b, c):
        torch.cuda._sleep(int(CYCLES_PER_MS * ms))
        return torch.zeros(c.shape[0], dtype=torch.int64, device=c.device)
    return method


for _ms in (0.25, 0.5, 1, 2, 4, 8):
    METHODS[f"sleep{_ms:g}"] = sleeper(_ms)
ONLY = os.environ.get("PROBE_METHODS")
if ONLY:
    METHODS = {k: v for k, v in METHODS.items() if k in ONLY.split(",")}
MM[0] = torch.randn(4096, 4096, device=dev)
MM.append(torch.empty(4096, 4096, device=dev))

# The reader: spins on the pipe as the parent does, reads whole frames, writes the instant.
rfd, wfd = os.pipe()
shared = mmap.mmap(-1, 16, flags=mmap.MAP_SHARED)
pid = os.fork()
if pid == 0:
    os.close(wfd)
    poller = select.poll()
    poller.register(rfd, select.POLLIN)
    seq = 0
    while True:
        while not poller.poll(0):
            pass
        head = os.read(rfd, 12)
        if len(head) < 12:
            os._exit(0)
        _, jl, pl = HEADER.unpack(head)
        need, got = jl + pl, 0
        while got < need:
            got += len(os.read(rfd, need - got))
        done = ns()
        seq += 1
        shared[0:16] = struct.pack("<qq", seq, done)
os.close(rfd)
seq = [0]


def call(name, variant):
    method = METHODS[name]
    received = ns()
    for t, h in zip(inputs, host):
        t.copy_(h, non_blocking=True)
    flush.zero_()
    sync()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    started_ns = ns()
    t0 = time.perf_counter()
    start.record()
    out = method(*inputs)
    end.record()
    if variant == "w1":
        while not end.query():
            pass
    elif variant in ("p1", "p2"):
        # while the device works, touch it from the host every 50 us on a side stream: a 4-byte
        # copy from pinned memory (p1) or a one-element kernel (p2)
        due = time.perf_counter()
        while not end.query():
            if time.perf_counter() >= due:
                with torch.cuda.stream(SIDE):
                    if variant == "p1":
                        PING[1].copy_(PING[0], non_blocking=True)
                    else:
                        PING[1].add_(1)
                due += 50e-6
    elif variant == "w2":
        while not end.query():
            time.sleep(0)
    sync()
    wall_ms = (time.perf_counter() - t0) * 1e3
    s = [ns()]                                   # ended
    ms = start.elapsed_time(end); s.append(ns())  # elapsed
    problem = output_problem(out, inputs[2]); s.append(ns())  # checks
    rows = out.shape[0]
    view = views.get(out.dtype)
    if view is None:
        view = views[out.dtype] = raw_t.view(out.dtype)[:rows]
    if False:
        code = cudart.cudaMemcpy(view.data_ptr(), out.data_ptr(), rows * out.element_size(), 2)
        s.append(ns()); s.append(ns())                # copy (blocking), no sync
    else:
        view.copy_(out, non_blocking=True); s.append(ns())  # copy queued
        sync(); s.append(ns())  # sync
    payload = labels_from_raw(raw, out.element_size(), rows); s.append(ns())  # bytes
    ptrs = dict(zip(("train_x", "train_y", "test_x"), (t.data_ptr() for t in inputs)))
    reply = {"ok": True, "ms": float(ms), "wall_ms": wall_ms, "clock_ns": {
        "received": received, "started": started_ns, "ended": s[0], "replying": s[-1]},
        "input_ptrs": ptrs}
    body = json.dumps(reply).encode()
    data = HEADER.pack(0x31544352, len(body), len(payload)) + body + bytes(payload)
    s.append(ns())                                       # encode
    mv = memoryview(data)
    while mv:
        mv = mv[os.write(wfd, mv):]
    s.append(ns())                                       # write
    seq[0] += 1
    while True:
        got, at = struct.unpack("<qq", shared[0:16])
        if got == seq[0]:
            break
    s.append(at)                                         # reader has the frame
    assert problem is None and payload is not None
    running = 0
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                running += f.read().rsplit(")", 1)[1].split()[0] == "R"
        except OSError:
            pass
    RUNNING.append(running)
    return ms, [(b - a) / 1e3 for a, b in zip(s, s[1:])]


RUNNING = []
SIDE = torch.cuda.Stream()
PING = [torch.zeros(1).pin_memory(), torch.zeros(1, device=dev)]


STEPS = ["elapsed", "checks", "copy", "sync", "bytes", "encode", "write", "read"]

flags = ctypes.c_uint(0)
if cudart is not None:
    print("cudaGetDeviceFlags", cudart.cudaGetDeviceFlags(ctypes.byref(flags)), hex(flags.value))
gc.collect()
gc.freeze()
# Warm everything, then size the sleep kernel to the rff method's time.
for name in METHODS:
    for _ in range(3):
        call(name, "w0")
METHODS.setdefault("sleep", sleep)
sleep_ms = st.median(call("sleep", "w0")[0] for _ in range(3))
SLEEP_CYCLES[0] = int(SLEEP_CYCLES[0] * 13.5 / sleep_ms)
mm_ms = st.median(call("mmloop", "w0")[0] for _ in range(3)) if "mmloop" in METHODS else 0
if mm_ms:
    MM[1] = max(1, round(MM[1] * 13.5 / mm_ms))
lc_ms = st.median(call("launches", "w0")[0] for _ in range(3)) if "launches" in METHODS else 0
print(f"sleep {sleep_ms:.3f} ms -> cycles {SLEEP_CYCLES[0]}; mm {mm_ms:.3f} ms -> {MM[1]} "
      f"products; launches {lc_ms:.3f} ms", flush=True)

variants = os.environ.get("PROBE_VARIANTS", "w0,w1,w2").split(",")
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 25
results = {}
for r in range(rounds):
    for name in METHODS:
        for variant in variants:
            gc.collect()
            call("empty", variant)
            gc.collect()
            ms, steps = call(name, variant)
            results.setdefault(f"{name}/{variant}", []).append({"ms": ms, "steps": steps,
                                                                "running": RUNNING[-1]})

print(f"medians in us over {rounds} calls; total = ended -> reader has the frame")
print("%-14s %8s " % ("method/variant", "ms") + " ".join("%8s" % s for s in STEPS) +
      " %8s %8s %8s" % ("total", "p90dev", "running"))
for key, calls in results.items():
    cols = [st.median(c["steps"][i] for c in calls) for i in range(len(STEPS))]
    totals = [sum(c["steps"]) for c in calls]
    med = st.median(totals)
    dev90 = sorted(abs(t - med) for t in totals)[int(0.9 * len(totals)) - 1]
    print("%-14s %8.3f " % (key, st.median(c["ms"] for c in calls)) +
          " ".join("%8.1f" % v for v in cols) + " %8.1f %8.1f %8.1f" % (
              med, dev90, st.mean(c["running"] for c in calls)))
out = os.environ.get("OUT", "/tmp")
with open(os.path.join(out, f"probe-post-{MODE}{os.environ.get('PROBE_TAG', '')}.json"), "w") as f:
    json.dump(results, f)
os.close(wfd)
os.waitpid(pid, 0)
