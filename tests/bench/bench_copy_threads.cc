// The window's write of a standard draw (10,000 x 60 each: 4,880,000 bytes) into the input
// buffer, by CopyThreads with 0 to N helpers and either stores (streaming, as ratchet writes on a
// GPU, and cached), as Go makes it: the draw copied into the staging area first (outside the
// window), the copy threads armed, then the timed copy. What the stores change for the device's
// read of the buffer after the write is not measured here: that needs the GPU
// (docs/performance.md). A benchmark, not a test: scripts/bench-write runs it and
// docs/performance.md records its figures.
//
//   bench_copy_threads [REPEATS] [MAX_HELPERS]     defaults: 400, min(7, usable cores - 1)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "protocol/copy_threads.h"
#include "protocol/input_buffer.h"

namespace ratchet {
namespace {

double Microseconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

double Quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(q * static_cast<double>(values.size() - 1) + 0.5)];
}

int Main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 400;
  const unsigned cores = CopyThreads::UsableCores();
  const int max_helpers =
      argc > 2 ? std::atoi(argv[2]) : static_cast<int>(std::min(7u, cores > 0 ? cores - 1 : 0));
  if (repeats < 1 || max_helpers < 0) {
    std::fprintf(stderr, "usage: bench_copy_threads [REPEATS >= 1] [MAX_HELPERS >= 0]\n");
    return 2;
  }
  Result<InputLayout> layout = InputLayout::Make(10000, 10000, 60);
  Result<InputBuffer> buffer =
      layout.ok() ? InputBuffer::Create(*layout) : Result<InputBuffer>(layout.status());
  if (!buffer.ok()) {
    std::fprintf(stderr, "bench_copy_threads: %s\n", buffer.status().message().c_str());
    return 3;
  }
  std::vector<float> draw_x(600000), staging_x(600000), draw_t(600000), staging_t(600000);
  std::vector<int64_t> draw_y(10000), staging_y(10000);
  for (size_t i = 0; i < draw_x.size(); ++i) draw_x[i] = draw_t[i] = static_cast<float>(i % 251);
  for (size_t i = 0; i < draw_y.size(); ++i) draw_y[i] = static_cast<int64_t>(i % 10);
  Result<std::vector<CopyPiece>> pieces =
      buffer->Pieces(staging_x.data(), staging_x.size(), staging_y.data(), staging_y.size(),
                     staging_t.data(), staging_t.size());
  if (!pieces.ok()) {
    std::fprintf(stderr, "bench_copy_threads: %s\n", pieces.status().message().c_str());
    return 3;
  }
  std::printf("write of %llu bytes, %d repeats, %u usable cores (ratchet uses %d helpers here)\n",
              static_cast<unsigned long long>(layout->bytes()), repeats, cores,
              CopyThreads::HelpersFor(cores));
  std::printf("%-10s %-8s %-8s %12s %12s %12s %14s\n", "stores", "helpers", "threads", "median us",
              "p10 us", "p90 us", "arm median us");
  for (int run = 0; run < 2 * (max_helpers + 1); ++run) {
    const Stores stores = run % 2 == 0 ? Stores::kStreaming : Stores::kCached;
    const int helpers = run / 2;
    CopyThreads copy_threads(helpers, stores);
    std::vector<double> copy_us, arm_us;
    for (int r = 0; r < repeats; ++r) {
      std::copy(draw_x.begin(), draw_x.end(), staging_x.begin());  // the stage
      std::copy(draw_y.begin(), draw_y.end(), staging_y.begin());
      std::copy(draw_t.begin(), draw_t.end(), staging_t.begin());
      const auto armed = std::chrono::steady_clock::now();
      copy_threads.Arm();
      const auto opened = std::chrono::steady_clock::now();
      copy_threads.Copy(pieces->data(), pieces->size());
      const auto written = std::chrono::steady_clock::now();
      arm_us.push_back(Microseconds(opened - armed));
      copy_us.push_back(Microseconds(written - opened));
      std::this_thread::sleep_for(std::chrono::microseconds(300));  // the helpers go back to sleep
    }
    std::printf("%-10s %-8d %-8d %12.1f %12.1f %12.1f %14.1f\n", StoresName(stores),
                copy_threads.helpers(), copy_threads.threads(), Quantile(copy_us, 0.5),
                Quantile(copy_us, 0.1), Quantile(copy_us, 0.9), Quantile(arm_us, 0.5));
  }
  return 0;
}

}  // namespace
}  // namespace ratchet

int main(int argc, char** argv) { return ratchet::Main(argc, argv); }
