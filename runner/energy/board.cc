#include "energy/board.h"

#include <utility>

namespace ratchet {
namespace {

class NvmlBoard : public Board {
 public:
  NvmlBoard(const NvmlApi& api, void* handle) : api_(api), handle_(handle) {}

  Result<uint64_t> EnergyMj() override {
    unsigned long long value = 0;
    const int code = api_.total_energy(handle_, &value);
    if (code != 0) {
      return Status::Unavailable(NvmlErrorText(api_, "nvmlDeviceGetTotalEnergyConsumption", code));
    }
    return static_cast<uint64_t>(value);
  }

  Result<int64_t> Utilization() override {
    unsigned rates[2] = {0, 0};  // nvmlUtilization_t: {gpu, memory}
    const int code = api_.utilization(handle_, rates);
    if (code != 0) {
      return Status::Unavailable(NvmlErrorText(api_, "nvmlDeviceGetUtilizationRates", code));
    }
    return static_cast<int64_t>(rates[0]);
  }

  std::optional<int64_t> Contexts() override {
    if (api_.running_processes == nullptr) return std::nullopt;
    // No buffer: the count alone, which NVML reports by refusing the empty buffer.
    unsigned count = 0;
    const int code = api_.running_processes(handle_, &count, nullptr);
    if (code == 0) return 0;
    if (code == kNvmlInsufficientSize) return static_cast<int64_t>(count);
    return std::nullopt;
  }

  Json Describe() override {
    const DeviceFacts facts = DescribeBoard(api_, handle_);
    auto text = [](const std::optional<std::string>& value) {
      return value ? Json(*value) : Json();
    };
    return {{"name", text(facts.name)},
            {"uuid", text(facts.uuid)},
            {"vbios", text(facts.vbios)},
            {"driver", text(facts.driver)},
            {"power_limit_w", facts.power_limit_mw ? Json(*facts.power_limit_mw / 1e3) : Json()}};
  }

 private:
  NvmlApi api_;
  void* handle_;
};

class NvmlDriver : public BoardDriver {
 public:
  explicit NvmlDriver(const NvmlApi& api) : api_(api) {}
  ~NvmlDriver() override { api_.shutdown(); }

  Result<std::unique_ptr<Board>> Select(const std::optional<std::string>& uuid) override {
    void* handle = nullptr;
    if (uuid && api_.handle_by_uuid(uuid->c_str(), &handle) == 0) {
      return std::unique_ptr<Board>(new NvmlBoard(api_, handle));
    }
    unsigned count = 0;
    const int code = api_.device_count(&count);
    if (code != 0) return Status::Unavailable(NvmlErrorText(api_, "nvmlDeviceGetCount_v2", code));
    if (count != 1) {
      return Status::Unavailable("cannot tell which of " + std::to_string(count) +
                                 " GPUs the method runs on" +
                                 (uuid ? " (the driver does not know " + *uuid + ")" : ""));
    }
    const int found = api_.handle_by_index(0, &handle);
    if (found != 0) {
      return Status::Unavailable(NvmlErrorText(api_, "nvmlDeviceGetHandleByIndex_v2", found));
    }
    return std::unique_ptr<Board>(new NvmlBoard(api_, handle));
  }

 private:
  NvmlApi api_;
};

}  // namespace

Result<std::unique_ptr<BoardDriver>> OpenNvmlDriver(const NvmlApi& api) {
  if (api.total_energy == nullptr || api.utilization == nullptr) {
    return Status::Unavailable(std::string("the NVIDIA driver's ") + kNvmlLibrary + " has no " +
                               (api.total_energy == nullptr ? "nvmlDeviceGetTotalEnergyConsumption"
                                                            : "nvmlDeviceGetUtilizationRates") +
                               ": it cannot read the board's energy");
  }
  const int code = api.init();
  if (code != 0) return Status::Unavailable(NvmlErrorText(api, "nvmlInit_v2", code));
  return std::unique_ptr<BoardDriver>(new NvmlDriver(api));
}

Result<std::unique_ptr<BoardDriver>> OpenNvml(const char* library) {
  Result<NvmlApi> api = BindNvml(library);
  if (!api.ok()) return api.status();
  return OpenNvmlDriver(*api);
}

}  // namespace ratchet
