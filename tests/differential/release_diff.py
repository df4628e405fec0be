"""Differential test of ratchet's data part against the seed scorer (rule set mnist-a100/1.2.0).

    release_diff.py RELEASE_PROBE RATCHET

1. Release: the seed's fit_whitener/apply_release (transform = Q @ W) and ratchet's release
   (release_probe) on the same rows and rotation agree within 1e-5, for synthetic rows and, when
   the datasets are here, real MNIST and Fashion-MNIST draws; both refuse rank-deficient rows.
2. Pools: ratchet's box averaging against the seed's load_pool formula (read_idx, area_weights)
   within 1e-6, on a synthetic IDX file and on the real files.
3. Relabelling: relabel[labels[rows]] exactly.
4. `ratchet draw` as an auditor would check it: the rows, the label permutation and the rotation
   regenerated from the seed by an independent reading of docs/draws.md, the inputs recomputed
   with the seed's numpy code, the labels exactly, every file against draw.json.

Exits 77 (skipped) when the seed scorer or numpy is absent; the real-data parts are skipped,
saying so, when the datasets are absent.
"""

import gzip
import hashlib
import hmac
import json
import math
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from seed import load_seed  # noqa: E402

seed = load_seed()
import numpy as np  # noqa: E402  (load_seed checked that it is there)

PROBE, RATCHET = sys.argv[1], sys.argv[2]
RELEASE_TOLERANCE = 1e-5
POOL_TOLERANCE = 1e-6
failures = []
work = Path(tempfile.mkdtemp(prefix="ratchet-release-diff-"))


def check(condition, message):
    print(("ok    " if condition else "FAIL  ") + message)
    if not condition:
        failures.append(message)


# ---------------------------------------------------------------------------------------------
# The seed's side

def seed_pool(images_bytes, labels_bytes):
    """The seed's load_pool, minus its download: read_idx, area weights, float32 matmuls, clip."""
    images = seed.read_idx(images_bytes, images=True)
    labels = seed.read_idx(labels_bytes, images=False)
    weights = seed.area_weights(28, seed.SIDE)
    pixels = np.matmul(np.matmul(weights, images.astype(np.float32) / np.float32(255)), weights.T)
    np.clip(pixels, 0.0, 1.0, out=pixels)
    return np.ascontiguousarray(pixels, dtype=np.float32).reshape(len(labels), -1), labels


def seed_release(train, test, rotation):
    mu, whitener = seed.fit_whitener(train)
    transform = rotation @ whitener
    return seed.apply_release(train, mu, transform), seed.apply_release(test, mu, transform)


# ---------------------------------------------------------------------------------------------
# ratchet's side, through the probe

def probe_release(train, test, rotation, name):
    dtype = "f32" if train.dtype == np.float32 else "f64"
    stem = hashlib.sha256(name.encode()).hexdigest()[:12]
    paths = [work / f"{stem}.{part}" for part in ("train", "test", "q", "ztrain", "ztest")]
    train.tofile(paths[0])
    test.tofile(paths[1])
    np.ascontiguousarray(rotation, dtype="<f8").tofile(paths[2])
    run = subprocess.run([PROBE, "release", dtype, str(paths[0]), str(len(train)), str(paths[1]),
                          str(len(test)), str(paths[2]), str(paths[3]), str(paths[4])],
                         capture_output=True, text=True)
    if run.returncode != 0:
        return None, run.stderr.strip()
    z_train = np.fromfile(paths[3], dtype="<f4").reshape(len(train), 60)
    z_test = np.fromfile(paths[4], dtype="<f4").reshape(len(test), 60)
    return (z_train, z_test), ""


def probe_pool(idx_path):
    out = work / "pool.f32"
    subprocess.run([PROBE, "pool", str(idx_path), str(out)], check=True)
    return np.fromfile(out, dtype="<f4").reshape(-1, 81)


def probe_relabel(labels, rows, relabel):
    paths = [work / f"relabel.{part}" for part in ("labels", "rows", "map", "out")]
    np.asarray(labels, dtype=np.uint8).tofile(paths[0])
    np.asarray(rows, dtype="<i8").tofile(paths[1])
    np.asarray(relabel, dtype="<i8").tofile(paths[2])
    subprocess.run([PROBE, "relabel"] + [str(p) for p in paths], check=True)
    return np.fromfile(paths[3], dtype="<i8")


def compare_release(train, test, rotation, name):
    expected = seed_release(train, test, rotation)
    got, error = probe_release(train, test, rotation, name)
    if got is None:
        check(False, f"{name}: ratchet refused the rows: {error}")
        return
    worst = max(float(np.max(np.abs(g.astype(np.float64) - e))) for g, e in zip(got, expected))
    check(worst <= RELEASE_TOLERANCE, f"{name}: release max |ratchet - seed| = {worst:.2e} (<= 1e-5)")


# ---------------------------------------------------------------------------------------------
# An independent reading of docs/draws.md: ChaCha20 keyed by HMAC-SHA256(seed, label)

def chacha20_blocks(key, first_block, count):
    """`count` ChaCha20 (RFC 8439) keystream blocks from block `first_block`, zero nonce."""
    words = struct.unpack("<8I", key)
    state = ([np.full(count, c, np.uint32) for c in (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)]
             + [np.full(count, w, np.uint32) for w in words]
             + [np.arange(first_block, first_block + count, dtype=np.uint32)]
             + [np.zeros(count, np.uint32) for _ in range(3)])
    x = [s.copy() for s in state]

    def rotate(v, bits):
        return (v << np.uint32(bits)) | (v >> np.uint32(32 - bits))

    def quarter(a, b, c, d):
        x[a] += x[b]; x[d] = rotate(x[d] ^ x[a], 16)  # noqa: E702
        x[c] += x[d]; x[b] = rotate(x[b] ^ x[c], 12)  # noqa: E702
        x[a] += x[b]; x[d] = rotate(x[d] ^ x[a], 8)  # noqa: E702
        x[c] += x[d]; x[b] = rotate(x[b] ^ x[c], 7)  # noqa: E702

    for _ in range(10):
        quarter(0, 4, 8, 12); quarter(1, 5, 9, 13); quarter(2, 6, 10, 14); quarter(3, 7, 11, 15)  # noqa: E702
        quarter(0, 5, 10, 15); quarter(1, 6, 11, 12); quarter(2, 7, 8, 13); quarter(3, 4, 9, 14)  # noqa: E702
    return np.stack([x[i] + state[i] for i in range(16)], axis=1).astype("<u4").tobytes()


class Stream:
    CHUNK_BLOCKS = 1024

    def __init__(self, run_seed, label):
        self.key = hmac.new(run_seed, label.encode(), hashlib.sha256).digest()
        self.block = 0
        self.words = []
        self.position = 0

    def word(self):
        if self.position == len(self.words):
            data = chacha20_blocks(self.key, self.block, self.CHUNK_BLOCKS)
            self.block += self.CHUNK_BLOCKS
            self.words = np.frombuffer(data, dtype="<u8").tolist()
            self.position = 0
        self.position += 1
        return self.words[self.position - 1]

    def below(self, n):
        rejected = (1 << 64) % n
        while True:
            w = self.word()
            if w >= rejected:
                return w % n

    def uniform(self):
        return (self.word() >> 11) * 2.0 ** -53

    def normals(self, count):
        out = []
        while len(out) < count:
            u1, u2 = self.uniform(), self.uniform()
            radius = math.sqrt(-2.0 * math.log(1.0 - u1))
            out += [radius * math.cos(2 * math.pi * u2), radius * math.sin(2 * math.pi * u2)]
        return out[:count]

    def sample(self, population, k):
        population = list(population)
        for i in range(k):
            j = i + self.below(len(population) - i)
            population[i], population[j] = population[j], population[i]
        return population[:k]


def audit_draw(run_seed, dataset, index, pool_rows):
    split = Stream(run_seed, f"split/{dataset}").sample(range(pool_rows), pool_rows)
    train_half, test_half = split[: pool_rows // 2], split[pool_rows // 2:]
    stream = Stream(run_seed, f"draw/{dataset}/{index}")
    train_rows = stream.sample(train_half, 10000)
    test_rows = stream.sample(test_half, 10000)
    relabel = stream.sample(range(10), 10)
    gaussian = np.array(stream.normals(3600)).reshape(60, 60)
    q, r = np.linalg.qr(gaussian)
    signs = np.sign(np.diag(r))
    signs[signs == 0] = 1.0
    return train_rows, test_rows, relabel, q * signs[None, :], (train_half, test_half)


# ---------------------------------------------------------------------------------------------

def test_stream_cipher():
    # RFC 8439 appendix A.1, test vector 1: all-zero key, nonce and counter.
    block = chacha20_blocks(bytes(32), 0, 1)
    check(block[:16].hex() == "76b8e0ada0f13d90405d6ae55386bd28",
          "the auditor's ChaCha20 matches RFC 8439 A.1 #1")


def synthetic_rows(rng, n, dark_columns=0, rank=None):
    """Rows like pooled digits: a few strong directions, weak noise, some always-dark pixels."""
    latent = rng.standard_normal((n, 12)) @ rng.standard_normal((12, 81)) * 0.15
    noise = rng.standard_normal((n, 81)) * np.geomspace(0.2, 0.002, 81)
    rows = np.clip(0.3 + latent + noise, 0.0, 1.0)
    if rank is not None:
        rows = 0.3 + (rng.standard_normal((n, rank)) @ rng.standard_normal((rank, 81))) * 0.05
    if dark_columns:
        rows[:, rng.choice(81, dark_columns, replace=False)] = 0.0
    return rows.astype(np.float32)


def test_synthetic_releases():
    for case, (n_train, n_test, dark, dtype) in enumerate(
            [(10000, 10000, 0, np.float32), (10000, 10000, 18, np.float32), (600, 400, 5, np.float64)]):
        rng = np.random.default_rng(1000 + case)
        train = synthetic_rows(rng, n_train, dark).astype(dtype)
        test = synthetic_rows(rng, n_test, dark).astype(dtype)
        compare_release(train, test, seed.haar_rotation(60, rng),
                        f"synthetic case {case} ({n_train}/{n_test} rows, {dark} dark pixels, {dtype.__name__})")
    rng = np.random.default_rng(7)
    train, test = synthetic_rows(rng, 2000, rank=50), synthetic_rows(rng, 100, rank=50)
    rotation = seed.haar_rotation(60, rng)
    try:
        seed.fit_whitener(train)
        seed_refused = False
    except ValueError:
        seed_refused = True
    got, error = probe_release(train, test, rotation, "rank50")
    check(seed_refused and got is None and "rank deficient" in error,
          f"rank-50 rows: both refuse (seed: {seed_refused}, ratchet: {error or 'accepted'})")


def write_idx_images(path, images):
    with open(path, "wb") as out:
        out.write(struct.pack(">IIII", 2051, len(images), 28, 28))
        out.write(images.astype(np.uint8).tobytes())


def test_synthetic_pool():
    rng = np.random.default_rng(11)
    images = rng.integers(0, 256, size=(60000, 28, 28), dtype=np.uint8)
    images[0] = 255
    images[1] = 0
    images[2:100] = (rng.random((98, 28, 28)) < 0.5) * 255  # saturated strokes
    path = work / "synthetic-images-idx3-ubyte"
    write_idx_images(path, images)
    labels = struct.pack(">II", 2049, 60000) + bytes(60000)
    expected, _ = seed_pool(path.read_bytes(), labels)
    got = probe_pool(path)
    worst = float(np.max(np.abs(got.astype(np.float64) - expected)))
    check(worst <= POOL_TOLERANCE, f"synthetic pool: max |ratchet - seed| = {worst:.2e} (<= 1e-6)")
    check(bool(np.all(got[0] == 1.0)) and bool(np.all(got[1] == 0.0)),
          "synthetic pool: an all-255 image pools to 1.0 and an all-0 image to 0.0")


def located_datasets():
    run = subprocess.run([RATCHET, "datasets", "--json"], capture_output=True, text=True)
    if run.returncode not in (0, 3):
        check(False, f"ratchet datasets exited {run.returncode}: {run.stderr.strip()}")
        return {}
    listing = json.loads(run.stdout)
    return {d["name"]: d for d in listing["datasets"] if d["present"]}


def read_idx_bytes(path):
    data = Path(path).read_bytes()
    return gzip.decompress(data) if path.endswith(".gz") else data


def test_real_data(datasets):
    for name in ("mnist", "fashion"):
        if name not in datasets:
            print(f"skip  {name}: absent on this machine (scripts/setup gets it)")
            continue
        entry = datasets[name]
        images_bytes = read_idx_bytes(entry["images"]["path"])
        labels_bytes = read_idx_bytes(entry["labels"]["path"])
        pixels, labels = seed_pool(images_bytes, labels_bytes)
        raw_images = work / f"{name}-images-idx3-ubyte"
        raw_images.write_bytes(images_bytes)
        got = probe_pool(raw_images)
        worst = float(np.max(np.abs(got.astype(np.float64) - pixels)))
        check(worst <= POOL_TOLERANCE, f"{name} pool: max |ratchet - seed| = {worst:.2e} (<= 1e-6)")

        for draw_seed in (1, 2):
            rng = np.random.default_rng(draw_seed)
            pool = seed.Pool(name, pixels, labels, rng)
            train = rng.choice(pool.train_half, 10000, replace=False)
            test = rng.choice(pool.test_half, 10000, replace=False)
            relabel = rng.permutation(10).astype(np.int64)
            rotation = seed.haar_rotation(60, rng)
            compare_release(pixels[train], pixels[test], rotation, f"{name} draw (numpy seed {draw_seed})")
            shown = probe_relabel(labels, test, relabel)
            check(np.array_equal(shown, relabel[labels[test]]),
                  f"{name} draw (numpy seed {draw_seed}): relabel[labels[rows]] identical")
        audit_ratchet_draws(name, pixels, got, labels)


def audit_ratchet_draws(name, pixels, ratchet_pixels, labels):
    run_seed = bytes(range(32))
    for index in (0, 5):
        out = work / f"draw-{name}-{index}"
        run = subprocess.run([RATCHET, "draw", "--dataset", name, "--seed", run_seed.hex(), "--index",
                              str(index), "--out", str(out)], capture_output=True, text=True)
        if run.returncode != 0:
            check(False, f"ratchet draw {name} {index} exited {run.returncode}: {run.stderr.strip()}")
            continue
        description = json.loads((out / "draw.json").read_text())
        arrays, hashes_ok = {}, True
        for entry in description["files"]:
            data = (out / entry["name"]).read_bytes()
            hashes_ok = hashes_ok and hashlib.sha256(data).hexdigest() == entry["sha256"]
            dtype = {"float32": "<f4", "float64": "<f8", "int64": "<i8"}[entry["dtype"]]
            arrays[entry["name"]] = np.frombuffer(data, dtype=dtype).reshape(entry["shape"])
        what = f"ratchet draw {name} index {index}"
        check(hashes_ok and description["seed_sha256"] == hashlib.sha256(run_seed).hexdigest(),
              f"{what}: every file matches draw.json, which holds the seed's sha256")
        train_rows, test_rows, relabel, rotation, halves = audit_draw(run_seed, name, index, len(labels))
        check(arrays["hidden/train_rows.i64"].tolist() == train_rows
              and arrays["hidden/test_rows.i64"].tolist() == test_rows
              and arrays["hidden/relabel.i64"].tolist() == relabel,
              f"{what}: rows and label permutation regenerated exactly from docs/draws.md")
        check(set(train_rows) <= set(halves[0]) and set(test_rows) <= set(halves[1]),
              f"{what}: train rows from the train half, test rows from the test half")
        q_error = float(np.max(np.abs(arrays["hidden/rotation.f64"] - rotation)))
        check(q_error <= 1e-12, f"{what}: rotation regenerated within {q_error:.1e} (<= 1e-12)")
        # The seed's release of the seed's own pool rows: the end-to-end difference, pools included.
        # Then of ratchet's pool rows: the release alone.
        for source, rows in (("seed's", pixels), ("ratchet's", ratchet_pixels)):
            expected = seed_release(rows[train_rows], rows[test_rows], arrays["hidden/rotation.f64"])
            worst = max(float(np.max(np.abs(arrays[f"inputs/{part}_x.f32"].astype(np.float64) - e)))
                        for part, e in zip(("train", "test"), expected))
            check(worst <= RELEASE_TOLERANCE,
                  f"{what}: inputs = seed's release of the {source} pool rows within {worst:.2e} (<= 1e-5)")
        relabel = np.asarray(relabel, dtype=np.int64)
        check(np.array_equal(arrays["inputs/train_y.i64"], relabel[labels[train_rows]])
              and np.array_equal(arrays["hidden/test_y.i64"], relabel[labels[test_rows]]),
              f"{what}: train_y and test_y are relabel[label] exactly")


def main():
    test_stream_cipher()
    test_synthetic_releases()
    test_synthetic_pool()
    test_real_data(located_datasets())
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    try:
        code = main()
    finally:
        subprocess.run(["rm", "-rf", str(work)])
    sys.exit(code)
