# red-team probe: a channel between calls through any machine-wide counter of /proc or /sys. A
# sender moves such counters (forks, memory, disk writes, page-cache reads, busy processors) and a
# later call's receiver reads them: the channel exists wherever what one process does changes what
# another reads. Each worker's warm-up reads every counter file it can (the top of /proc, all of
# /proc/sys and /proc/pressure, /sys's NUMA nodes, processors, kernel folder and block devices),
# does all of that, and reads them again: a file whose text moved with it is a channel (its own
# process's files, a fresh random uuid, and the processors' clock speeds in /proc/cpuinfo and
# cpufreq, which docs/sandbox.md lists as left, are not counted). It reads two counters that come
# through syscalls as well: sysinfo(2) (load, free memory, process count, uptime) and the inode
# number of a new pidfd (Linux 6.9 and later: it counts the machine's processes).
# The sandbox must: cover every machine-wide counter in the view with fixed text.
# Expected: qualified, log line "REDTEAM-PROBE machine_counters: found nothing" in every call.

import os
import sys
import threading
import time

import torch

NAME = "machine_counters"
calls = 0


class RT:
    """The probe's helpers, in a class so that method() stays the file's one top-level function."""

    @staticmethod
    def say(line):
        print(line[:4000], file=sys.stderr, flush=True)

    @staticmethod
    def report(found, note=""):
        if note:
            RT.say(f"REDTEAM-NOTE {NAME}: {note}")
        RT.say(f"REDTEAM-PROBE {NAME}: " + ("ESCAPE " + "; ".join(found) if found else
                                              "found nothing"))

    @staticmethod
    def ncm(train_x, train_y, test_x):
        """baselines/submissions/ncm.py: nearest class mean, about 15% error."""
        sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
        sums.index_add_(0, train_y, train_x)
        counts = torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)
        means = sums / counts[:, None]
        return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)

    # Files that change by themselves or with this process alone: not a channel between calls.
    OWN = ("/proc/self", "/proc/thread-self", "/proc/sys/kernel/random/uuid", "/proc/cpuinfo",
           "/proc/sys/kernel/ns_last_pid", "/proc/kmsg", "/proc/kcore")
    CLOCKS = "/cpufreq/"  # a processor's clock speed: left (docs/sandbox.md)

    @staticmethod
    def files():
        found = []
        for top in sorted(os.listdir("/proc")):
            path = "/proc/" + top
            if top.isdigit() or path.startswith(RT.OWN):
                continue
            if os.path.isfile(path):
                found.append(path)
        for root in ("/proc/sys", "/proc/pressure", "/proc/fs", "/sys/devices/system/node",
                     "/sys/devices/system/cpu", "/sys/kernel", "/sys/fs"):
            for folder, _, names in os.walk(root):
                found += [os.path.join(folder, name) for name in names]
        for device in os.listdir("/sys/block") if os.path.isdir("/sys/block") else []:
            real = os.path.realpath("/sys/block/" + device)
            for folder, _, names in os.walk(real):
                found += [os.path.join(folder, name) for name in names
                          if name in ("stat", "inflight")]
        return [path for path in found if not path.startswith(RT.OWN) and RT.CLOCKS not in path]

    @staticmethod
    def snapshot(paths):
        texts = {}
        for path in paths:
            try:
                with open(path, "rb") as handle:
                    texts[path] = handle.read(1 << 16)
            except OSError:
                pass
        texts["sysinfo()"] = RT.sysinfo()
        texts["pidfd inode"] = RT.pidfd_inode()
        return texts

    @staticmethod
    def pidfd_inode():
        """The inode number of a new process's pidfd: 6.9 and later number them in creation order."""
        child = os.fork()
        if child == 0:
            os._exit(0)
        try:
            pidfd = os.pidfd_open(child)
        except OSError as error:  # refused: nothing to read
            return f"refused: {error.errno}".encode()
        finally:
            os.waitpid(child, 0)
        inode = os.fstat(pidfd).st_ino
        os.close(pidfd)
        return str(inode).encode()

    @staticmethod
    def sysinfo():
        import ctypes
        buffer = ctypes.create_string_buffer(256)
        if ctypes.CDLL(None, use_errno=True).sysinfo(buffer) != 0:
            return f"refused: {ctypes.get_errno()}".encode()
        return buffer.raw[:112]  # struct sysinfo on x86-64: every field

    @staticmethod
    def activity():
        """What a sender would do to move the machine's counters."""
        for _ in range(2000):  # forks and PIDs
            thread = threading.Thread(target=int)
            thread.start()
            thread.join()
        block = bytearray(128 << 20)  # memory
        for at in range(0, len(block), 4096):
            block[at] = 1
        with open("/tmp/machine_counters.bin", "wb") as handle:  # disk writes
            handle.write(bytes(64 << 20))
            handle.flush()
            os.fsync(handle.fileno())
        os.unlink("/tmp/machine_counters.bin")
        del block
        libraries = [os.path.join(folder, name) for folder, _, names in os.walk(torch.__path__[0])
                     for name in names if name.endswith(".so")]
        for library in sorted(libraries)[:20]:  # page-cache reads
            try:
                with open(library, "rb") as handle:
                    while handle.read(1 << 20):
                        pass
            except OSError:  # a dangling link
                pass
        stop = time.monotonic() + 0.5  # a busy processor
        while time.monotonic() < stop:
            pass

    @staticmethod
    def probe():
        paths = RT.files()
        before = RT.snapshot(paths)
        RT.activity()
        time.sleep(1.0)
        after = RT.snapshot(paths)
        moved = sorted(path for path in before if after.get(path) != before[path])
        note = f"read {len(before)} files twice; moved: {moved[:40]}"
        return [f"{path} moved" for path in moved[:10]], note


def method(train_x, train_y, test_x):
    global calls
    calls += 1  # 1: the warm-up, 2: the timed call (every timed call has a fresh worker)
    if calls == 1:
        try:
            found, note = RT.probe()
        except Exception as error:  # a broken probe says so, never "found nothing"
            RT.say(f"REDTEAM-PROBE {NAME}: ERROR {type(error).__name__}: {error}")
        else:
            RT.report(found, note)
    return RT.ncm(train_x, train_y, test_x)
