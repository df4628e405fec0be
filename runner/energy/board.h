// The board whose energy the column reads: its cumulative energy counter, how busy it was, and
// how many processes hold a compute context on it. The real one reads NVML (contract/nvml.h);
// tests stand a fake in for it. The parent reads it; the method never does.
#ifndef RATCHET_ENERGY_BOARD_H_
#define RATCHET_ENERGY_BOARD_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "contract/nvml.h"
#include "core/canonical_json.h"
#include "core/status.h"

namespace ratchet {

class Board {
 public:
  virtual ~Board() = default;
  // The counter of energy the board has used since the driver loaded, in millijoules. A read
  // takes milliseconds and a tight loop of them raises idle power, so it is read at window
  // edges only.
  virtual Result<uint64_t> EnergyMj() = 0;
  // Percent of the last sample period (1/6 s to 1 s, by board) in which a kernel ran.
  virtual Result<int64_t> Utilization() = 0;
  // How many processes hold a compute context on the board; nullopt when it cannot say.
  virtual std::optional<int64_t> Contexts() = 0;
  // {"name", "uuid", "vbios", "driver", "power_limit_w"}, each null where the board refuses.
  virtual Json Describe() = 0;
};

// The driver, opened before any worker starts (so a machine without one says so at once), and
// the board chosen once a worker has said which device it runs on.
class BoardDriver {
 public:
  virtual ~BoardDriver() = default;
  // The board with `uuid` ("GPU-..." from the worker's hello); without one, or when the driver
  // does not know it, the only board there is (an error when there are several).
  virtual Result<std::unique_ptr<Board>> Select(const std::optional<std::string>& uuid) = 0;
};

// NVML through `api` (BindNvml), initialized here and shut down when the driver is destroyed.
// Unavailable when it does not initialize or lacks the energy counter or utilization.
Result<std::unique_ptr<BoardDriver>> OpenNvmlDriver(const NvmlApi& api);
// BindNvml(library), then OpenNvmlDriver.
Result<std::unique_ptr<BoardDriver>> OpenNvml(const char* library = kNvmlLibrary);

}  // namespace ratchet

#endif  // RATCHET_ENERGY_BOARD_H_
