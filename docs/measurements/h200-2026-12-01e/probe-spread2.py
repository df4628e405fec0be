"""Where does a timed call of rff_ridge spend its extra half millisecond in the slow calls?

Parent: runs `python3 probe-spread.py child MODE` N times in sequence (a fresh process per timed
call, as the workers), and one `inproc` child that makes N timed calls in one process. Each child:
imports torch, makes the inputs (random, a difficulty-1 draw's shapes: 10,000 x 60 train and test,
int64 labels), a 256 MiB L2 flush buffer, one warm-up call on other inputs, then per timed call:
new inputs copied into the same tensors, the flush, a device synchronization, and rff_ridge with a
CUDA event after each of its steps, the host's clock at each step, NVML's SM clock, temperature,
power and clock-event reasons read before and after the window.
Modes: `free` (as the worker: no affinity), `pinfifo` (bound to core 8, SCHED_FIFO 1); in one
process, 30 calls: `hot` (back to back), `sleep` (0.3 s before each), `sleepspin` (and 20 ms spin).
"""

import ctypes
import json
import math
import os
import subprocess
import sys
import time

CLASSES, FEATURES, SEED, WIDTH, RIDGE, FLOOR = 10, 4096, 20240607, 0.6, 20.0, 1e-3


class Nvml:
    def __init__(self):
        self.lib = ctypes.CDLL("libnvidia-ml.so.1")
        self.lib.nvmlInit_v2()
        self.h = ctypes.c_void_p()
        self.lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(self.h))

    def read(self):
        v = ctypes.c_uint()
        out = {}
        self.lib.nvmlDeviceGetClockInfo(self.h, 1, ctypes.byref(v)); out["sm_mhz"] = v.value
        self.lib.nvmlDeviceGetClockInfo(self.h, 2, ctypes.byref(v)); out["mem_mhz"] = v.value
        self.lib.nvmlDeviceGetTemperature(self.h, 0, ctypes.byref(v)); out["temp_c"] = v.value
        self.lib.nvmlDeviceGetPowerUsage(self.h, ctypes.byref(v)); out["power_mw"] = v.value
        r = ctypes.c_ulonglong()
        self.lib.nvmlDeviceGetCurrentClocksEventReasons(self.h, ctypes.byref(r)); out["reasons"] = r.value
        return out


def timed(torch, train_x, train_y, test_x, ev, host):
    def mark():
        e = torch.cuda.Event(enable_timing=True)
        e.record()
        ev.append(e)
        host.append(time.perf_counter_ns())

    mark()
    means = torch.zeros(CLASSES, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    means.index_add_(0, train_y, train_x)
    counts = torch.bincount(train_y, minlength=CLASSES).clamp_min(1).to(train_x.dtype)
    means = means / counts[:, None]
    within = train_x - means.index_select(0, train_y)
    scatter = within.t().mm(within) / train_x.shape[0]
    mark()  # 1 means+scatter
    values, vectors = torch.linalg.eigh(scatter)
    mark()  # 2 eigh (syncs)
    metric = vectors / values.clamp_min(FLOOR).sqrt()
    a, b = train_x.mm(metric), test_x.mm(metric)
    centered = a - a.mean(0)
    spread = (centered * centered).sum() / a.shape[0]
    generator = torch.Generator(device=train_x.device)
    generator.manual_seed(SEED)
    frequencies = torch.randn(a.shape[1], FEATURES, generator=generator, dtype=a.dtype, device=a.device)
    phases = torch.rand(FEATURES, generator=generator, dtype=a.dtype, device=a.device)
    frequencies = frequencies * (spread.rsqrt() * WIDTH)
    phases = phases * (2.0 * math.pi)
    mark()  # 3 metric, generator
    features = torch.cos(a.mm(frequencies) + phases)
    mark()  # 4 features
    gram = features.t().mm(features)
    gram.diagonal().add_(RIDGE)
    mark()  # 5 gram
    factor = torch.linalg.cholesky(gram)
    del gram
    mark()  # 6 cholesky (syncs)
    targets = torch.nn.functional.one_hot(train_y, CLASSES).to(train_x.dtype)
    weights = torch.cholesky_solve(features.t().mm(targets), factor)
    del factor, features
    mark()  # 7 solve
    out = torch.cos(b.mm(frequencies) + phases).mm(weights).argmax(1)
    mark()  # 8 predict
    return out


def child(mode, calls):
    if mode in ("pin", "pinfifo"):
        os.sched_setaffinity(0, {8})
    if mode == "pinfifo":
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    import torch

    nv = Nvml()
    dev = torch.device("cuda")
    n, d = 10000, 60
    train_x = torch.empty(n, d, device=dev)
    test_x = torch.empty(n, d, device=dev)
    train_y = torch.empty(n, dtype=torch.int64, device=dev)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    host_in = [torch.empty(n, d).pin_memory(), torch.empty(n, d).pin_memory(),
               torch.empty(n, dtype=torch.int64).pin_memory()]

    def fill():
        host_in[0].normal_(); host_in[1].normal_(); host_in[2].random_(0, CLASSES)
        train_x.copy_(host_in[0], non_blocking=True)
        test_x.copy_(host_in[1], non_blocking=True)
        train_y.copy_(host_in[2], non_blocking=True)
        flush.zero_()
        torch.cuda.synchronize()

    fill()
    timed(torch, train_x, train_y, test_x, [], [])  # the warm-up
    torch.cuda.synchronize()
    for _ in range(calls):
        fill()
        before = nv.read()
        ev, host = [], []
        t0 = time.perf_counter_ns()
        start = torch.cuda.Event(enable_timing=True)
        start.record()
        timed(torch, train_x, train_y, test_x, ev, host)
        end = torch.cuda.Event(enable_timing=True)
        end.record()
        torch.cuda.synchronize()
        t1 = time.perf_counter_ns()
        after = nv.read()
        steps = [ev[i].elapsed_time(ev[i + 1]) for i in range(len(ev) - 1)]
        hsteps = [(host[i + 1] - host[i]) / 1e6 for i in range(len(host) - 1)]
        print(json.dumps({"mode": mode, "ms": start.elapsed_time(end), "wall_ms": (t1 - t0) / 1e6,
                          "steps": steps, "host_steps": hsteps, "host_to_end_ms": (t1 - host[-1]) / 1e6,
                          "cpu": os.sched_getaffinity(0).__len__(), "before": before, "after": after}), flush=True)
        if mode in ("sleep", "sleepspin"):
            time.sleep(0.3)  # about a fresh worker's gap between timed calls
        if mode == "sleepspin":
            until = time.perf_counter() + 0.02
            while time.perf_counter() < until:
                pass


def main():
    if sys.argv[1] == "child":
        child(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 1)
        return
    n = int(sys.argv[1])
    out = open(sys.argv[2], "w")
    order = sys.argv[3].split(",") if len(sys.argv) > 3 else ["free", "pinfifo"]
    for i in range(n):
        for mode in order:  # interleaved
            r = subprocess.run([sys.executable, __file__, "child", mode], capture_output=True, text=True)
            out.write(r.stdout)
            out.flush()
            if r.returncode:
                print(r.stderr[-2000:], file=sys.stderr)
    for mode in ("hot", "sleep", "sleepspin"):
        r = subprocess.run([sys.executable, __file__, "child", mode, "30"], capture_output=True, text=True)
        out.write(r.stdout)
        if r.returncode:
            print(r.stderr[-2000:], file=sys.stderr)
    out.close()


if __name__ == "__main__":
    main()
