# Why are the labels step and the reply slower after a method than after an empty call?
# Part 1: the labels chain (the worker's five kernels and a pageable copy) after preparations that
# separate "the GPU was idle", "the GPU was busy", "the host submitted nothing for a while".
# Part 2: a one-byte pipe reply between two processes after the reader waited blocked or spinning.
import os, sys, time, importlib.util, statistics
import torch
dev = "cuda"
spec = importlib.util.spec_from_file_location("m", sys.argv[1]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
g = torch.Generator().manual_seed(1)
x = (torch.randn(10000, 784, generator=g).to(dev), torch.randint(0, 10, (10000,), generator=g).to(dev), torch.randn(10000, 784, generator=g).to(dev))
for _ in range(3): m.method(*x)
torch.cuda.synchronize()
payload = bytearray(10000)
def chain(out):
    wide = out.to(torch.int64)
    labels = wide.masked_fill(wide.lt(0).logical_or(wide.gt(9)), 255).to(torch.uint8).to("cpu")
    payload[:] = labels.numpy().tobytes()
def empty():
    out = torch.zeros(10000, dtype=torch.int64, device=dev); torch.cuda.synchronize(); return out
t = time.perf_counter(); torch.cuda._sleep(10**7); torch.cuda.synchronize(); dt = time.perf_counter() - t
cycles = int(10**7 * 0.014 / dt)
a = torch.randn(4096, 4096, device=dev); b = torch.randn(4096, 4096, device=dev)
t = time.perf_counter(); [a @ b for _ in range(10)]; torch.cuda.synchronize(); mm = (time.perf_counter() - t) / 10
mm_n = max(1, int(0.014 / mm))
def spin(s, body=None):
    t = time.perf_counter()
    while time.perf_counter() - t < s:
        if body: body()
stream = torch.cuda.current_stream()
last = [0.0]
def tiny():
    now = time.perf_counter()
    if now - last[0] > 1e-4: torch.cuda._sleep(100); last[0] = now
def prep(kind):
    chain(empty())
    if kind == "b2b": spin(0.0005); return empty()
    if kind == "spin14": spin(0.014); return empty()
    if kind == "spin14_query": spin(0.014, stream.query); return empty()
    if kind == "spin14_tiny": spin(0.014, tiny); return empty()
    if kind == "sleepkernel14": torch.cuda._sleep(cycles); return empty()
    if kind == "matmul14":
        for _ in range(mm_n): a @ b
        return empty()
    if kind == "matmul14_tail": # busy, then 0.5 ms of nothing on the GPU
        for _ in range(mm_n): a @ b
        torch.cuda.synchronize(); spin(0.0005); return empty()
    if kind == "method": out = m.method(*x); torch.cuda.synchronize(); return out
kinds = ["b2b", "spin14", "spin14_query", "spin14_tiny", "sleepkernel14", "matmul14", "matmul14_tail", "method"]
res = {}
e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
for rep in range(60):
    for kind in kinds:
        out = prep(kind)
        t = time.perf_counter_ns(); e0.record(); chain(out); e1.record(); w = (time.perf_counter_ns() - t) / 1e3
        e1.synchronize()
        res.setdefault(kind, []).append((w, e0.elapsed_time(e1) * 1e3))
print(f"matmul {mm*1e3:.2f} ms x {mm_n}")
for kind in kinds:
    v = res[kind][5:]
    w = sorted(a for a, _ in v); gg = sorted(b for _, b in v)
    print(f"{kind:15s} chain wall med {w[len(w)//2]:7.1f} p90 {w[int(len(w)*0.9)]:7.1f} us | gpu events med {gg[len(gg)//2]:7.1f} p90 {gg[int(len(gg)*0.9)]:7.1f} us")

# Part 2: pipe wake-up.
r1, w1 = os.pipe(); r2, w2 = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(w1); os.close(r2)
    while True:
        d = os.read(r1, 8)
        if not d or d == b"q": os._exit(0)
        gap = int.from_bytes(d, "little") / 1e6
        spin(gap)
        os.write(w2, time.perf_counter_ns().to_bytes(8, "little"))
os.close(r1); os.close(w2)
os.set_blocking(r2, True)
lat = {}
for rep in range(80):
    for gap in (0.3, 2.0, 14.0):
        for mode in ("blocked", "spinning"):
            os.write(w1, int(gap * 1e6).to_bytes(8, "little"))
            if mode == "blocked":
                d = os.read(r2, 8)
            else:
                os.set_blocking(r2, False)
                while True:
                    try:
                        d = os.read(r2, 8); break
                    except BlockingIOError: pass
                os.set_blocking(r2, True)
            got = time.perf_counter_ns()
            lat.setdefault((gap, mode), []).append((got - int.from_bytes(d, "little")) / 1e3)
os.write(w1, b"q"); os.waitpid(pid, 0)
for k, v in lat.items():
    v = sorted(v[5:])
    print(f"pipe reply after {k[0]:5.1f} ms, reader {k[1]:9s}: med {v[len(v)//2]:6.1f} p90 {v[int(len(v)*0.9)]:6.1f} us")
