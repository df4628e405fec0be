# Where does the inputs step's two-level time come from? The step: three copies of ~4.9 MB from a
# pinned shared buffer to the device, a 256 MiB memset (the L2 flush), one synchronization.
# Before it, writer threads fill the buffer (as the parent's crew does). Modes vary the write.
import ctypes, mmap, os, statistics, sys, threading, time
import torch
here = os.path.dirname(os.path.abspath(__file__))
lib = ctypes.CDLL(os.path.join(here, "ntcopy.so"))
for f in (lib.plain_copy, lib.nt_copy):
    f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
lib.flush_lines.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
TRAIN, TEST, DIMS = 10000, 10000, 60
sizes = (TRAIN * DIMS * 4, TRAIN * 8, TEST * DIMS * 4)
N = sum(sizes)
print("cpus", os.cpu_count(), "affinity", sorted(os.sched_getaffinity(0)))
fd = os.memfd_create("buf")
os.ftruncate(fd, N)
m = mmap.mmap(fd, N, flags=mmap.MAP_SHARED)
dst = ctypes.addressof(ctypes.c_char.from_buffer(m))
print("register", int(torch.cuda.cudart().cudaHostRegister(dst, N, 0)))
src = ctypes.create_string_buffer(os.urandom(N), N)
srcp = ctypes.addressof(src)
views = (torch.frombuffer(m, dtype=torch.float32, count=TRAIN * DIMS, offset=0).view(TRAIN, DIMS),
         torch.frombuffer(m, dtype=torch.int64, count=TRAIN, offset=sizes[0]),
         torch.frombuffer(m, dtype=torch.float32, count=TEST * DIMS, offset=sizes[0] + sizes[1]).view(TEST, DIMS))
dev = torch.device("cuda")
inputs = [torch.empty(v.shape, dtype=v.dtype, device=dev) for v in views]
flush = torch.empty(256 * 2**20 // 4, dtype=torch.int32, device=dev)
E = lambda: torch.cuda.Event(enable_timing=True)

class Crew:
    def __init__(self, k, fn, cpus=None):
        self.k, self.fn, self.cpus = k, fn, cpus
        self.start, self.done = threading.Barrier(k), threading.Barrier(k)
        part = (N + k - 1) // k
        self.part = (part + 63) // 64 * 64
        self.threads = [threading.Thread(target=self.loop, args=(i,), daemon=True) for i in range(1, k)]
        for t in self.threads: t.start()
    def share(self, i):
        a = i * self.part; b = min(N, a + self.part)
        if a < b: self.fn(dst + a, srcp + a, b - a)
    def loop(self, i):
        if self.cpus: os.sched_setaffinity(0, {self.cpus[i]})
        while True:
            self.start.wait(); self.share(i); self.done.wait()
    def write(self):
        if self.k == 1: self.share(0); return
        self.start.wait(); self.share(0); self.done.wait()

def step():
    e0, e1, e2 = E(), E(), E()
    t = time.perf_counter()
    e0.record()
    for target, view in zip(inputs, views): target.copy_(view, non_blocking=True)
    e1.record()
    flush.zero_()
    e2.record()
    torch.cuda.synchronize()
    wall = (time.perf_counter() - t) * 1e3
    return wall, e0.elapsed_time(e1), e1.elapsed_time(e2)

def empty_labels():
    out = torch.zeros(TEST, dtype=torch.int64, device=dev)
    wide = out.to(torch.int64)
    labels = torch.where((wide >= 0) & (wide <= 9), wide, 255).to(torch.uint8).cpu()

def q(xs, p): return sorted(xs)[int(p * (len(xs) - 1))]
def hist(xs):
    b = {}
    for x in xs: b[round(x * 20) / 20] = b.get(round(x * 20) / 20, 0) + 1
    return " ".join(f"{k:.2f}:{v}" for k, v in sorted(b.items()))

crews = {}
def mode(name, writer, reps=150, gap_s=0.0):
    w, c, f, wr = [], [], [], []
    for _ in range(reps):
        empty_labels()  # something between windows, as the empty calls' labels step
        if gap_s: time.sleep(gap_s)
        t = time.perf_counter()
        if writer: writer()
        wr.append((time.perf_counter() - t) * 1e3)
        a, b, d = step()
        w.append(a); c.append(b); f.append(d)
    print(f"{name:34s} write med {statistics.median(wr):.3f} | step wall med {statistics.median(w):.3f} "
          f"p10 {q(w,.1):.3f} p90 {q(w,.9):.3f} | copy(gpu) med {statistics.median(c):.3f} p10 {q(c,.1):.3f} "
          f"p90 {q(c,.9):.3f} | memset med {statistics.median(f):.3f} p90 {q(f,.9):.3f}")
    print("   wall hist", hist(w)); print("   copy hist", hist(c))
    sys.stdout.flush()

for _ in range(20): step()
cpus = sorted(os.sched_getaffinity(0))
c4 = Crew(4, lib.plain_copy); n4 = Crew(4, lib.nt_copy)
c1 = Crew(1, lib.plain_copy); n1 = Crew(1, lib.nt_copy)
lo = Crew(4, lib.plain_copy, cpus[:4]); hi = Crew(4, lib.plain_copy, cpus[-4:])
def c4flush(): c4.write(); lib.flush_lines(dst, N)
for rnd in range(2):
    print("round", rnd)
    mode("no write", None)
    mode("memcpy, 4 threads", c4.write)
    mode("non-temporal, 4 threads", n4.write)
    mode("memcpy, 1 thread", c1.write)
    mode("non-temporal, 1 thread", n1.write)
    mode("memcpy, 4 threads, then clflush", c4flush)
    mode(f"memcpy, 4 threads on cpus {cpus[:4]}", lo.write)
    mode(f"memcpy, 4 threads on cpus {cpus[-4:]}", hi.write)
    mode("memcpy, 4 threads, 2 ms idle before", c4.write, gap_s=0.002)
