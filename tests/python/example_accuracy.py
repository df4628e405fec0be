"""The test error of Python method files on real released draws, made by the reference scorer.

    python3 tests/python/example_accuracy.py [--draws N] [--seed S] [--data DIR] FILE.py ...

Builds the MNIST pool (and Fashion-MNIST's, when Debian's dataset-fashion-mnist is installed)
with the reference scorer's own read_idx / area_weights formula, makes N draws with its Pool,
runs each file's `method` on the CPU and prints every draw's error and the mean, against the
difficulty-1 band of 5.40%. Slow on a CPU for the heavier methods; not part of ctest.
Exits 77 when the reference scorer or the MNIST files are absent.
"""

import argparse
import gzip
import importlib.util
import sys
import time
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "tests" / "differential"))
from seed import load_seed  # noqa: E402

FASHION = Path("/usr/share/datasets/fashion-mnist")


def read(path):
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def pool(seed, images, labels):
    import numpy as np

    images = seed.read_idx(read(images), images=True)
    labels = seed.read_idx(read(labels), images=False)
    weights = seed.area_weights(28, seed.SIDE)
    pixels = np.matmul(np.matmul(weights, images.astype(np.float32) / np.float32(255)), weights.T)
    np.clip(pixels, 0.0, 1.0, out=pixels)
    return np.ascontiguousarray(pixels, dtype=np.float32), labels


def load_method(path):
    sys.modules.setdefault("mnist", types.ModuleType("mnist"))
    spec = importlib.util.spec_from_file_location(f"example_{Path(path).stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.method


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--data", default=str(HERE.parents[1] / "data" / "mnist"))
    args = parser.parse_args()
    seed = load_seed()
    import numpy as np
    import torch

    data = Path(args.data)
    images = next((data / n for n in ("train-images-idx3-ubyte", "train-images-idx3-ubyte.gz")
                   if (data / n).exists()), None)
    if images is None:
        print(f"skipped: no MNIST training images in {data}")
        return 77
    pools = {"mnist": pool(seed, images, images.with_name(images.name.replace("images-idx3",
                                                                                "labels-idx1")))}
    if (FASHION / "train-images-idx3-ubyte.gz").exists():
        pools["fashion"] = pool(seed, FASHION / "train-images-idx3-ubyte.gz",
                                FASHION / "train-labels-idx1-ubyte.gz")
    rng = np.random.default_rng(args.seed)
    draws = []
    for name, (pixels, labels) in pools.items():
        source = seed.Pool(name, pixels, labels, rng)
        draws += [source.draw(rng) for _ in range(args.draws if name == "mnist" else 1)]
    for path in args.files:
        method = load_method(path)
        errors = {}
        for d in draws:
            inputs = [torch.from_numpy(np.ascontiguousarray(d[k]))
                      for k in ("train_x", "train_y", "test_x")]
            started = time.perf_counter()
            labels = method(*inputs)
            seconds = time.perf_counter() - started
            error = float(np.mean(labels.numpy().astype(np.int64) != d["test_y"])) * 100
            errors.setdefault(d["dataset"], []).append(error)
            print(f"{Path(path).name} {d['dataset']}: {error:.2f}% error ({seconds:.1f} s)",
                  flush=True)
        mean = sum(errors["mnist"]) / len(errors["mnist"])
        print(f"{Path(path).name}: MNIST mean {mean:.2f}% over {len(errors['mnist'])} draws "
              f"(worst {max(errors['mnist']):.2f}%); difficulty 1 allows 5.40%", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
