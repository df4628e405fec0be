# red-team: a method file named check_source.py, like the harness's source checker. Where the
# method file is copied into the checker's folder under its own name, it replaces the checker and
# runs as it: its `if __name__ == "__main__":` block (which the source rules never look into)
# prints the verdict {"ok": true}, so a file that breaks the source rules (this one calls print at
# module level) is let through, and its module-level code then runs in every worker's load.
# The sandbox must: store the submission under a fixed internal name in a folder of its own, so
# that the checker is never replaced.
# Expected: source ("... line 15: a call to print at module level ..."). The escape shows as a
# qualified run with "REDTEAM-PROBE harness_named_checker: ESCAPE ..." in the logs.
import json
import sys

import torch

print("REDTEAM-PROBE harness_named_checker: ESCAPE module-level code ran after the source check",
      file=sys.stderr, flush=True)


def method(train_x, train_y, test_x):
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    means = sums / torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)


if __name__ == "__main__":
    # Only ever reached when this file is run as a program, i.e. in place of the checker.
    print(json.dumps({"ok": True, "error": None, "function": "method", "flags": []}))
