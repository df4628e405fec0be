# Where can the empty call's round trip get cheaper? (1) the parent's write of ~4.9 MB into the
# shared input buffer, by threads; (2) the labels step, fewer kernels; (3) events per call.
import ctypes, mmap, os, statistics, time, threading
import torch
libc = ctypes.CDLL("libc.so.6")
libc.memcpy.restype = ctypes.c_void_p
libc.memcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
N = 10000*60*4*2 + 10000*8
print("cpus", os.cpu_count(), "affinity", len(os.sched_getaffinity(0)))
print(open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0])
fd = os.memfd_create("buf")
os.ftruncate(fd, N)
m = mmap.mmap(fd, N, flags=mmap.MAP_SHARED)
dst = ctypes.addressof(ctypes.c_char.from_buffer(m))
code = torch.cuda.cudart().cudaHostRegister(dst, N, 0)
print("register", int(code))
src = ctypes.create_string_buffer(N)
srcp = ctypes.addressof(src)
stage_src = ctypes.create_string_buffer(N)
def med(xs): return statistics.median(xs)*1e6
# single memcpy, source hot (just written, as the staging copy does)
for label, k in (("1 thread", 1), ("2", 2), ("4", 4), ("8", 8)):
    ts = []
    for _ in range(300):
        libc.memcpy(srcp, ctypes.addressof(stage_src), N)  # the stage: source hot
        if k == 1:
            t = time.perf_counter(); libc.memcpy(dst, srcp, N); ts.append(time.perf_counter()-t)
        else:
            part = (N + k - 1)//k
            part = (part + 63)//64*64
            # ctypes releases the GIL during foreign calls, so threads copy in parallel
            go = threading.Barrier(k)
            def w(i):
                go.wait()
                a = i*part; b = min(N, a+part)
                if a < b: libc.memcpy(dst+a, srcp+a, b-a)
            th = [threading.Thread(target=w, args=(i,)) for i in range(1, k)]
            for x in th: x.start()
            time.sleep(0.001)
            t = time.perf_counter(); go.wait(); w_ = None
            a=0; b=min(N,part); libc.memcpy(dst+a, srcp+a, b-a)
            for x in th: x.join()
            ts.append(time.perf_counter()-t)
    print(f"write {N} B, {label}: median {med(ts):.1f} us, p10 {statistics.quantiles(ts,n=10)[0]*1e6:.1f}, p90 {statistics.quantiles(ts,n=10)[-1]*1e6:.1f}")
# labels variants
dev = torch.device("cuda")
out = torch.zeros(10000, dtype=torch.int64, device=dev)
payload = bytearray(10000)
pinned = torch.empty(10000, dtype=torch.int64).pin_memory()
def A():
    wide = out.to(torch.int64)
    labels = torch.where((wide >= 0) & (wide <= 9), wide, 255)
    torch.frombuffer(payload, dtype=torch.uint8).copy_(labels.to(torch.uint8))
def B():
    wide = out.to("cpu").to(torch.int64)
    labels = torch.where((wide >= 0) & (wide <= 9), wide, 255)
    torch.frombuffer(payload, dtype=torch.uint8).copy_(labels.to(torch.uint8))
def C():
    pinned.copy_(out)
    wide = pinned
    labels = torch.where((wide >= 0) & (wide <= 9), wide, 255)
    torch.frombuffer(payload, dtype=torch.uint8).copy_(labels.to(torch.uint8))
def D():
    wide = out.to(torch.int64)
    labels = wide.masked_fill(wide.lt(0).logical_or(wide.gt(9)), 255).to(torch.uint8).to("cpu")
    payload[:] = labels.numpy().tobytes() if False else bytes(labels.untyped_storage())
import warnings
sizes=(2*10000*60//2,)
for name, f in (("A current py", A), ("B cpu first", B), ("C pinned first", C), ("D native-like", D), ("A again", A)):
    ts = []
    for _ in range(500):
        torch.cuda.synchronize()
        t = time.perf_counter(); f(); ts.append(time.perf_counter()-t)
    print(f"labels {name}: median {med(ts):.1f} us p90 {statistics.quantiles(ts,n=10)[-1]*1e6:.1f}")
# events created per call against reused
for name in ("new events", "reused"):
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(500):
        torch.cuda.synchronize()
        t = time.perf_counter()
        if name == "new events":
            e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record(); e1.record(); torch.cuda.synchronize(); e0.elapsed_time(e1)
        ts.append(time.perf_counter()-t)
    print(f"events {name}: median {med(ts):.1f} us")
# the stage: views made per call against cached
buf = mmap.mmap(fd, N, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)
inputs = (torch.empty((10000,60),device=dev), torch.empty(10000,dtype=torch.int64,device=dev), torch.empty((10000,60),device=dev))
import math
def views():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [torch.frombuffer(buf, dtype=dt, count=math.prod(s), offset=o).view(s) for dt, s, o in
                ((torch.float32,(10000,60),0),(torch.int64,(10000,),2400000),(torch.float32,(10000,60),2480000))]
cached = views()
for name in ("views per call", "cached views"):
    ts = []
    for _ in range(500):
        torch.cuda.synchronize()
        t = time.perf_counter()
        vs = views() if name == "views per call" else cached
        for a, v in zip(inputs, vs): a.copy_(v, non_blocking=True)
        torch.cuda.synchronize()
        ts.append(time.perf_counter()-t)
    print(f"inputs {name}: median {med(ts):.1f} us")
