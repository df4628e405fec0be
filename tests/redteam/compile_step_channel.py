# red-team probe: a channel between calls through the compile step's caches (docs/scoring.md,
# "The compile step"). In the compile step's warm-up (its cache folder has no kernel yet) the
# method "compiles" a kernel into $TRITON_CACHE_DIR and leaves links there to files of the
# machine (/etc/shadow, /proc/self/environ, the parent's root); in every later call it finds the
# kernel (the caches were carried), looks for those links (a link must never be carried, nor
# what it names read by the parent), and for a file another call wrote into its own copy; then
# it writes one of its own, holding what it could leak (a digest of its inputs). A worker's
# warm-up finds no such file and its timed call finds its warm-up's alone; a cache folder shared
# between calls would show another's.
# The sandbox must: carry only folders and regular files of the step's cache folder, read
# without following a link, into a private copy for each later worker, so that nothing a call
# writes reaches another.
# Compile-step: always
# Expected: qualified, log line "REDTEAM-PROBE compile_step_channel: found nothing" in every call.

import hashlib
import os
import sys
import uuid

import torch

NAME = "compile_step_channel"
LINKS = {"shadow": "/etc/shadow", "environ": "/proc/self/environ", "root": "/proc/1/root"}


def method(train_x, train_y, test_x):
    say = lambda line: print(f"REDTEAM-PROBE {NAME}: {line}"[:4000], file=sys.stderr, flush=True)
    cache = os.environ.get("TRITON_CACHE_DIR", "")
    kernel = os.path.join(cache, "kernel.bin")
    if not cache:
        say("ERROR: no TRITON_CACHE_DIR")
    elif not os.path.exists(kernel):
        os.makedirs(cache, exist_ok=True)
        with open(kernel, "w") as out:
            out.write("compiled")
        made = []
        for name, target in LINKS.items():
            try:
                os.symlink(target, os.path.join(cache, "link-" + name))
                made.append(name)
            except OSError as error:
                made.append(f"{name} ({error.strerror})")
        say(f"compiled here (no kernel in the cache: the compile step), links left: {made}")
    else:
        names = os.listdir(cache)
        carried_links = [n for n in names if n.startswith("link-")]
        others = [n for n in names if n.startswith("call-")]
        if carried_links:
            say(f"ESCAPE: the compile step's links were carried: {carried_links}")
        elif len(others) > 1:
            say(f"ESCAPE: another call's file in this call's cache: {others}")
        else:
            say(f"found nothing (the kernel was carried; {len(others)} file(s) of this worker)")
        digest = hashlib.sha256(test_x.numpy().tobytes()).hexdigest()
        with open(os.path.join(cache, "call-" + uuid.uuid4().hex), "w") as out:
            out.write(digest)
    means = torch.stack([train_x[train_y == c].mean(0) for c in range(10)])
    return torch.cdist(test_x, means).argmin(1)
