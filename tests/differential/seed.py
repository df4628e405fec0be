"""Loads the seed scorer (rule set mnist-a100/1.2.0) as the module `mnist` for differential tests.

The reference is $RATCHET_REFERENCE_HARNESS, else ../shared/seeds/000_37e8900d37b7eec5.txt beside
the checkout. It is copied to a file named mnist.py in a temporary folder and imported from there.
When neither exists, or numpy is missing, the test exits 77: ctest reports it as skipped, never as
passed.
"""

import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path

SKIP = 77
SEED_NAME = "000_37e8900d37b7eec5.txt"


def reference_path():
    explicit = os.environ.get("RATCHET_REFERENCE_HARNESS")
    if explicit:
        return Path(explicit)
    source = Path(os.environ.get("RATCHET_SOURCE_DIR", Path(__file__).resolve().parents[2]))
    return source.parent / "shared" / "seeds" / SEED_NAME


def load_seed():
    """The seed scorer as a module, or exit 77 (skipped) saying why it is not here."""
    path = reference_path()
    if not path.is_file():
        print(f"skipped: no reference harness at {path} (set RATCHET_REFERENCE_HARNESS)")
        sys.exit(SKIP)
    try:
        import numpy  # noqa: F401  the seed's draws and release need it
    except ImportError:
        print(f"skipped: {sys.executable} has no numpy (Debian: apt-get install python3-numpy)")
        sys.exit(SKIP)
    folder = Path(tempfile.mkdtemp(prefix="ratchet-seed-"))
    shutil.copy(path, folder / "mnist.py")
    spec = importlib.util.spec_from_file_location("mnist", folder / "mnist.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["mnist"] = module
    spec.loader.exec_module(module)
    shutil.rmtree(folder, ignore_errors=True)
    return module
