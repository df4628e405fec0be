#include "scorer/headroom.h"

#include <sstream>

#include "core/file.h"

namespace ratchet {

bool Ample(const MemoryReading& reading) {
  return reading.total_bytes > 0 && reading.free_bytes >= reading.total_bytes / 4 * 3;
}

Result<MemoryReading> ParseMeminfo(const std::string& text) {
  MemoryReading reading;
  bool total = false, available = false;
  std::istringstream lines(text);
  std::string key, unit;
  uint64_t value = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    if (!(fields >> key >> value)) continue;
    fields >> unit;
    const uint64_t bytes = unit == "kB" ? value * 1024 : value;
    if (key == "MemTotal:") reading.total_bytes = bytes, total = true;
    if (key == "MemAvailable:") reading.free_bytes = bytes, available = true;
  }
  if (!total || !available) {
    return Status::BadInput("/proc/meminfo has no MemTotal or no MemAvailable");
  }
  return reading;
}

namespace {

class HostGauge : public MemoryGauge {
 public:
  Result<MemoryReading> Read() override {
    Result<std::string> text = ReadFile("/proc/meminfo");
    if (!text.ok()) return text.status();
    return ParseMeminfo(*text);
  }
  std::string Name() const override { return "host"; }
};

class BoardGauge : public MemoryGauge {
 public:
  BoardGauge(const NvmlApi& api, void* handle, std::string uuid)
      : api_(api), handle_(handle), uuid_(std::move(uuid)) {}
  ~BoardGauge() override { api_.shutdown(); }

  Result<MemoryReading> Read() override {
    unsigned long long memory[3] = {0, 0, 0};  // nvmlMemory_t: total, free, used
    const int code = api_.memory_info(handle_, memory);
    if (code != 0) return Status::Unavailable(NvmlErrorText(api_, "nvmlDeviceGetMemoryInfo", code));
    return MemoryReading{memory[0], memory[1]};
  }
  std::string Name() const override { return uuid_; }

 private:
  NvmlApi api_;
  void* handle_;
  std::string uuid_;
};

}  // namespace

std::unique_ptr<MemoryGauge> HostMemoryGauge() { return std::make_unique<HostGauge>(); }

Result<std::unique_ptr<MemoryGauge>> BoardMemoryGauge(const NvmlApi& api, const std::string& uuid) {
  if (api.memory_info == nullptr) {
    return Status::Unavailable("the NVIDIA driver's library has no nvmlDeviceGetMemoryInfo");
  }
  const int started = api.init();
  if (started != 0) return Status::Unavailable(NvmlErrorText(api, "nvmlInit_v2", started));
  void* handle = nullptr;
  const int found = api.handle_by_uuid(uuid.c_str(), &handle);
  if (found != 0) {
    Status status = Status::Unavailable(NvmlErrorText(api, "nvmlDeviceGetHandleByUUID", found));
    api.shutdown();
    return status;
  }
  return std::unique_ptr<MemoryGauge>(new BoardGauge(api, handle, uuid));
}

}  // namespace ratchet
