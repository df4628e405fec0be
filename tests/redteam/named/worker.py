# red-team: a method file named worker.py, like the harness's Python worker. Where the method file
# is copied into the worker's folder under its own name, it replaces the worker there and the
# interpreter runs it as __main__: its `if __name__ == "__main__":` block (which the source rules
# never look into) runs before hello, as the worker, with the protocol's descriptors. This one
# says so on stderr, then runs the genuine worker.py (found in the checkout) so that the run goes on.
# The sandbox must: store the submission under a fixed internal name in a folder of its own, so
# that the harness's files are never replaced and the file is only ever imported as `submission`.
# Expected: qualified (ncm's labels), log line "REDTEAM-PROBE harness_named_worker: found nothing";
# "ESCAPE ran as the worker" means the file took the worker's place.
import glob
import os
import runpy
import sys

import torch

calls = 0


def method(train_x, train_y, test_x):
    global calls
    calls += 1
    if calls == 1:
        took_over = os.environ.get("REDTEAM_RAN_AS_WORKER") == "1"
        print("REDTEAM-PROBE harness_named_worker: " + ("ESCAPE ran as the worker before hello"
                                                        if took_over else "found nothing"),
              file=sys.stderr, flush=True)
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)


if __name__ == "__main__":
    # Only ever reached when this file is run as a program, i.e. in place of the harness's worker.
    os.environ["REDTEAM_RAN_AS_WORKER"] = "1"
    print(f"REDTEAM-PROBE harness_named_worker: ESCAPE ran as the worker (pid {os.getpid()}, "
          f"uid {os.getuid()}, argv {sys.argv})", file=sys.stderr, flush=True)
    genuine = [path for pattern in ("/work/*/runner/worker/worker.py", "/opt/*/runner/worker/worker.py",
                                    "/usr/local/share/ratchet/worker.py", "/src/*/runner/worker/worker.py")
               for path in glob.glob(pattern)]
    if not genuine:
        print("REDTEAM-NOTE harness_named_worker: no genuine worker.py in sight; exiting",
              file=sys.stderr, flush=True)
        sys.exit(3)
    sys.argv[0] = genuine[0]
    runpy.run_path(genuine[0], run_name="__main__")
