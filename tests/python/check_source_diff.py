"""Differential test: check_source.py against the reference scorer's own source rules.

Every case of source_cases.py, every red-team submission, every example submission and every
Python file of this repository is checked by both; they must agree on the verdict, on the message
byte for byte, and on the review flags. The one difference allowed is ratchet's own rule: where
the reference passes a file, check_source.py may refuse it with that rule (LoadsCode), and it must
for every case of STRICTER_CASES. Exits 77 (skipped) when the reference scorer is absent.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE_DIR = HERE.parents[1]
sys.path.insert(0, str(SOURCE_DIR / "tests" / "differential"))
sys.path.insert(0, str(SOURCE_DIR / "runner" / "worker"))
sys.path.insert(0, str(HERE))
from seed import load_seed  # noqa: E402

seed = load_seed()
import check_source  # noqa: E402
from source_cases import CASES, STRICTER_CASES  # noqa: E402


def seed_verdict(source, function, filename):
    try:
        seed.check_source(source, function, filename)
        error = None
    except seed.SourceError as problem:
        error = str(problem)
    try:
        flags = seed.review_flags(source)
    except SyntaxError:
        flags = []
    return error, flags


def our_verdict(source, function, filename):
    answer = check_source.verdict(source, function, filename)
    return answer["error"], answer["flags"]


def ratchets_own_rule(source, function, filename):
    """Whether check_source.py refuses the file by ratchet's own rule, not a reference rule."""
    try:
        check_source.check_source(source, function, filename)
    except check_source.LoadsCode:
        return True
    except Exception:  # noqa: BLE001  any other refusal, or a fault, is not that rule
        return False
    return False


def file_cases():
    """(name, bytes, function, None) for files on disk: the corpus, the examples, this repo."""
    seen = set()
    roots = [SOURCE_DIR / "tests" / "submissions", SOURCE_DIR / "baselines" / "submissions",
             SOURCE_DIR / "runner", SOURCE_DIR / "tests", SOURCE_DIR / "scripts"]
    for root in roots:
        for path in sorted(root.rglob("*.py")) if root.is_dir() else ():
            if path in seen or "build" in path.parts:
                continue
            seen.add(path)
            data = path.read_bytes()
            first = data.split(b"\n", 1)[0]
            function = "method" if b"red-team" in first or "submissions" in path.parts else "main"
            yield str(path.relative_to(SOURCE_DIR)), data, function, None


def main():
    failures, count, stricter = [], 0, 0
    cases = [(name, text.encode(), function, passes) for name, text, function, passes in CASES]
    stricter_cases = {name for name, _, _, _ in STRICTER_CASES}
    cases += [(name, text.encode(), function, None) for name, text, function, _ in STRICTER_CASES]
    for name, source, function, passes in cases + list(file_cases()):
        filename = Path(name).name if name.endswith(".py") else "case.py"
        expected, seed_flags = seed_verdict(source, function, filename)
        got, flags = our_verdict(source, function, filename)
        count += 1
        problems = []
        ours_only = expected is None and ratchets_own_rule(source, function, filename)
        if name in stricter_cases and not ours_only:
            problems.append(f"a stricter case that the seed passes and ratchet's own rule refuses"
                            f"\n    seed: {expected}\n    ours: {got}")
        elif got != expected and not ours_only:
            problems.append(f"message\n    seed: {expected}\n    ours: {got}")
        if flags != seed_flags:
            problems.append(f"flags\n    seed: {seed_flags}\n    ours: {flags}")
        if passes is not None and (expected is None) != passes:
            problems.append(f"source_cases.py says passes={passes}, the seed says {expected}")
        if problems:
            failures.append(name)
            print(f"FAIL  {name}: " + "; ".join(problems))
        elif ours_only:
            stricter += 1
            print(f"ok    {name}: the seed passes, ratchet's own rule refuses: {got[:100]}")
        else:
            print(f"ok    {name}: {'passes' if got is None else got[:100]}"
                  + (f" [{len(flags)} flag(s)]" if flags else ""))
    print(f"{count - len(failures)}/{count} agree ({stricter} refused by ratchet's own rule alone)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
