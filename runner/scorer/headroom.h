// Whether a call's method may start while the last call's worker is still being torn down: the
// memory a method uses (the board's on a GPU, the machine's otherwise) must be at least three
// quarters free while that worker's is still counted as used. A method is the same program in
// every call, so one whose predecessor holds less than a quarter would need more than three
// quarters of the whole at its peak to be short of memory beside it (as the workers started
// ahead, each holding its device context, can already make a method that needs nearly all of a
// board fail). Otherwise, and whenever the memory cannot be read, the run waits for the teardown.
#ifndef RATCHET_SCORER_HEADROOM_H_
#define RATCHET_SCORER_HEADROOM_H_

#include <cstdint>
#include <memory>
#include <string>

#include "contract/nvml.h"
#include "core/status.h"

namespace ratchet {

struct MemoryReading {
  uint64_t total_bytes = 0;
  uint64_t free_bytes = 0;
};

// At least three quarters of the memory free (and some memory at all).
bool Ample(const MemoryReading& reading);
inline constexpr char kAmpleText[] = "three quarters";

// MemTotal and MemAvailable of /proc/meminfo's text; BadInput when either is missing.
Result<MemoryReading> ParseMeminfo(const std::string& text);

class MemoryGauge {
 public:
  virtual ~MemoryGauge() = default;
  virtual Result<MemoryReading> Read() = 0;
  // What it reads, for the evidence: "host" or the board's uuid.
  virtual std::string Name() const = 0;
};

// The machine's memory, from /proc/meminfo.
std::unique_ptr<MemoryGauge> HostMemoryGauge();

// The board `uuid` names (from the worker's hello), through `api` (BindNvml), initialized here
// and shut down when the gauge is destroyed. Unavailable when NVML does not initialize, lacks
// nvmlDeviceGetMemoryInfo, or does not know the board.
Result<std::unique_ptr<MemoryGauge>> BoardMemoryGauge(const NvmlApi& api, const std::string& uuid);

}  // namespace ratchet

#endif  // RATCHET_SCORER_HEADROOM_H_
