# When does a run's first worker start, against the run's own start? Line times of `ratchet score`,
# and the first instant a process named ratchet-worker (or worker.py) exists.
import os, subprocess, sys, threading, time
argv = sys.argv[1:]
t0 = time.monotonic()
seen = {}
def poll():
    while "done" not in seen:
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                cmd = open(f"/proc/{pid}/cmdline", "rb").read()
            except OSError:
                continue
            for name in (b"ratchet-worker", b"worker.py"):
                if name in cmd and name not in seen:
                    seen[name] = time.monotonic() - t0
        time.sleep(0.002)
threading.Thread(target=poll, daemon=True).start()
p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
for line in p.stdout:
    print(f"{time.monotonic() - t0:7.3f} {line.rstrip()}", flush=True)
p.wait()
seen["done"] = time.monotonic() - t0
print("exit", p.returncode, {k.decode() if isinstance(k, bytes) else k: round(v, 3) for k, v in seen.items()})
