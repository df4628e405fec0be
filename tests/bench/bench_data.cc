// Benchmarks of the data part, run by scripts/bench (not a test): SHA-256 throughput of the
// core hasher, and the time of one 10,000/10,000 draw with its release on the real MNIST pool.
//
//   bench_data sha256 [MIB]        hashes MIB MiB (default 1024) in 64 MiB chunks
//   bench_data draw [RUNS] [--data DIR]
// Each prints one JSON object per line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "core/sha256.h"
#include "data/draw.h"
#include "data/keyed_stream.h"
#include "data/locate.h"
#include "data/pool.h"

namespace ratchet {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

int BenchSha256(size_t mib) {
  constexpr size_t kChunk = size_t{64} << 20;
  std::vector<unsigned char> buffer(kChunk);
  uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (unsigned char& byte : buffer) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    byte = static_cast<unsigned char>(state >> 56);
  }
  const size_t total = mib << 20;
  Sha256 hash;
  const Clock::time_point start = Clock::now();
  for (size_t done = 0; done < total; done += kChunk) {
    hash.Update(buffer.data(), std::min(kChunk, total - done));
  }
  const std::string digest = hash.HexDigest();
  const double seconds = SecondsSince(start);
  std::printf(
      "{\"bench\": \"sha256\", \"bytes\": %zu, \"seconds\": %.4f, \"gb_per_s\": %.3f, "
      "\"digest\": \"%s\"}\n",
      total, seconds, static_cast<double>(total) / seconds / 1e9, digest.c_str());
  return 0;
}

int BenchDraw(int runs, const std::optional<std::string>& data) {
  Result<DataSearch> search = MakeDataSearch(data);
  if (!search.ok()) {
    std::fprintf(stderr, "bench_data: %s\n", search.status().message().c_str());
    return 2;
  }
  Result<LocatedDataset> mnist = LocateDataset(*search, "mnist");
  if (!mnist.ok() || !mnist->present) {
    std::fprintf(stderr, "bench_data: mnist is not here (%s); run scripts/setup\n",
                 mnist.ok() ? "absent" : mnist.status().message().c_str());
    return 3;
  }
  Clock::time_point start = Clock::now();
  Result<Pool> pool = LoadPool(*mnist);
  if (!pool.ok()) {
    std::fprintf(stderr, "bench_data: %s\n", pool.status().message().c_str());
    return 2;
  }
  const double load_seconds = SecondsSince(start);
  RunSeed seed;
  for (size_t i = 0; i < seed.bytes.size(); ++i) seed.bytes[i] = static_cast<uint8_t>(i);
  start = Clock::now();
  Result<Split> split = MakeSplit(seed, "mnist", pool->rows());
  const double split_seconds = SecondsSince(start);
  if (!split.ok()) return 3;
  std::vector<double> times;
  for (int run = -1; run < runs; ++run) {  // run -1 warms the caches and is not counted
    start = Clock::now();
    Result<Draw> draw = MakeDraw(*pool, *split, seed, static_cast<uint64_t>(run + 1));
    const double seconds = SecondsSince(start);
    if (!draw.ok()) {
      std::fprintf(stderr, "bench_data: %s\n", draw.status().message().c_str());
      return 3;
    }
    if (run >= 0) times.push_back(seconds);
  }
  std::printf(
      "{\"bench\": \"draw\", \"dataset\": \"mnist\", \"runs\": %d, \"median_ms\": %.2f, "
      "\"min_ms\": %.2f, \"max_ms\": %.2f, \"pool_load_ms\": %.1f, \"split_ms\": %.2f}\n",
      runs, Median(times) * 1e3, *std::min_element(times.begin(), times.end()) * 1e3,
      *std::max_element(times.begin(), times.end()) * 1e3, load_seconds * 1e3, split_seconds * 1e3);
  return 0;
}

}  // namespace
}  // namespace ratchet

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "sha256") {
    return ratchet::BenchSha256(args.size() > 1 ? std::stoul(args[1]) : 1024);
  }
  if (!args.empty() && args[0] == "draw") {
    int runs = 21;
    std::optional<std::string> data;
    for (size_t i = 1; i < args.size(); ++i) {
      if (args[i] == "--data" && i + 1 < args.size()) {
        data = args[++i];
      } else {
        runs = std::stoi(args[i]);
      }
    }
    return ratchet::BenchDraw(runs, data);
  }
  std::fprintf(stderr, "usage: bench_data sha256 [MIB] | draw [RUNS] [--data DIR]\n");
  return 2;
}
