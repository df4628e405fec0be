# How a killed CUDA process's teardown and its leftover kernels disturb another process's round trips.
import os, signal, subprocess, sys, time, json, statistics
PY = sys.executable
MON = r'''
import sys, time, torch, json
dev = torch.device("cuda"); torch.cuda.init()
h = torch.empty(100000, dtype=torch.float32).pin_memory(); d = torch.empty(100000, device=dev)
o = torch.empty(100000, dtype=torch.float32).pin_memory()
for _ in range(50):
    d.copy_(h, non_blocking=True); d.add_(1); o.copy_(d, non_blocking=True); torch.cuda.synchronize()
print("ready", flush=True)
dur = float(sys.argv[1]); out = []
end = time.monotonic_ns() + int(dur * 1e9)
while True:
    t0 = time.monotonic_ns()
    if t0 > end: break
    d.copy_(h, non_blocking=True); d.add_(1); o.copy_(d, non_blocking=True); torch.cuda.synchronize()
    out.append((t0, time.monotonic_ns() - t0))
    time.sleep(0.0002)
json.dump(out, open(sys.argv[2], "w"))
'''
VIC = r'''
import sys, torch
dev = torch.device("cuda"); torch.cuda.init()
a = torch.empty(1 << 28, device=dev); b = torch.randn(4096, 4096, device=dev); c = b @ b
p = torch.empty(16 << 20).pin_memory(); torch.linalg.cholesky(b @ b.T + 4096 * torch.eye(4096, device=dev))
torch.cuda.synchronize()
print("ready", flush=True)
if sys.argv[1] == "spin":
    sys.stdin.readline(); torch.cuda._sleep(int(4e9)); print("spinning", flush=True)
import time; time.sleep(60)
'''
def run(kind, stop_first):
    res = {}
    v = subprocess.Popen([PY, "-c", VIC, kind], stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True)
    assert v.stdout.readline().strip() == "ready"
    m = subprocess.Popen([PY, "-c", MON, "3.0", "/tmp/mon.json"], stdout=subprocess.PIPE, text=True)
    assert m.stdout.readline().strip() == "ready"
    time.sleep(0.6)
    t_go = None
    if kind == "spin":
        t_go = time.monotonic_ns(); v.stdin.write("go\n"); v.stdin.flush(); v.stdout.readline(); time.sleep(0.3)
    t_stop = None
    if stop_first:
        t_stop = time.monotonic_ns(); os.kill(v.pid, signal.SIGSTOP); time.sleep(0.4)
    t_kill = time.monotonic_ns(); os.kill(v.pid, signal.SIGKILL); v.wait(); t_reap = time.monotonic_ns()
    m.wait()
    rt = json.load(open("/tmp/mon.json"))
    ref = t_go or t_stop or t_kill
    before = [d for t, d in rt if t < ref - 100e6 and t > ref - 500e6]
    base = statistics.median(before) if before else float("nan")
    def win(a, b):
        xs = [d for t, d in rt if a <= t < b]
        return (len(xs), round(statistics.median(xs)/1e3, 1) if xs else None, round(max(xs)/1e3, 1) if xs else None)
    slow = [t for t, d in rt if d > 3 * base and t >= ref - 50e6]
    res = dict(kind=kind, stop_first=stop_first, kill_to_reap_ms=round((t_reap - t_kill)/1e6, 1),
               base_us=round(base/1e3, 1), before_kill=win(ref - 500e6, ref),
               spinning=win(t_go, t_stop or t_kill) if t_go else None,
               stopped=win(t_stop, t_kill) if t_stop else None,
               kill_0_10ms=win(t_kill, t_kill + 10e6), kill_10ms_reap=win(t_kill + 10e6, t_reap),
               reap_50ms=win(t_reap, t_reap + 50e6), after=win(t_reap + 50e6, t_reap + 1000e6),
               last_slow_ms_after_kill=round((max(slow) - t_kill)/1e6, 1) if slow else None)
    print(json.dumps(res), flush=True)
for kind, stop in [("spin", False), ("spin", True)]:
    run(kind, stop)
