# red-team probe: statfs and fstatfs are answered by the parent, which resolves the path itself. A
# symbolic link in the worker's own folder to an absolute path of the machine outside the view
# (/root, /home, an evidence folder), statted by its relative name, would tell whether that path
# exists on the machine if the parent followed the link from its own root; so would "..", and a
# /proc magic link. The sandbox must: resolve every path inside the worker's view.
# Expected: qualified, log line "REDTEAM-PROBE statfs_link: found nothing" in every call.
import os
import sys

import torch

NAME = "statfs_link"
calls = 0


class RT:
    """The probe, in a class so that method() stays the file's one top-level function."""

    @staticmethod
    def probe():
        found, notes = [], []
        for target in ("/root", "/work", "/home", "/var/lib", "/tmp/ev"):
            link = "link" + target.replace("/", "_")
            try:
                os.symlink(target, link)
            except OSError as error:
                notes.append(f"{target}: symlink {error.errno}")
                continue
            in_view = os.path.exists(target)
            try:
                s = os.statvfs(link)
                answered = f"ok blocks={s.f_blocks}"
            except OSError as error:
                answered = f"errno {error.errno}"
            notes.append(f"{target}: in view {in_view}, statvfs(link) {answered}")
            if not in_view and answered.startswith("ok"):
                found.append(f"{target} exists on the machine")
            os.unlink(link)
        for path in ("/proc/1/root/usr/bin", "../../../../../../root"):
            try:
                s = os.statvfs(path)
                notes.append(f"{path}: ok type blocks={s.f_blocks}")
            except OSError as error:
                notes.append(f"{path}: errno {error.errno}")
        return found, notes


def method(train_x, train_y, test_x):
    global calls
    calls += 1
    if calls == 1:
        found, notes = RT.probe()
        print(f"REDTEAM-NOTE {NAME}: {notes}", file=sys.stderr, flush=True)
        print(f"REDTEAM-PROBE {NAME}: " + ("ESCAPE " + "; ".join(found) if found else "found nothing"), file=sys.stderr, flush=True)
    sums = torch.zeros(10, train_x.shape[1], dtype=train_x.dtype, device=train_x.device)
    sums.index_add_(0, train_y, train_x)
    counts = torch.bincount(train_y, minlength=10).clamp_min(1).to(train_x.dtype)
    means = sums / counts[:, None]
    return ((means * means).sum(1)[None, :] - 2.0 * test_x @ means.T).argmin(1)
