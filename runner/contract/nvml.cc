#include "contract/nvml.h"

#include <dlfcn.h>

#include <type_traits>
#include <utility>

namespace ratchet {
namespace {

// Buffer sizes NVML guarantees to be enough (nvmlConstants): the _V2 name and UUID sizes, the
// VBIOS and driver version sizes.
constexpr unsigned kNameSize = 96;
constexpr unsigned kUuidSize = 96;
constexpr unsigned kVbiosSize = 32;
constexpr unsigned kDriverSize = 80;

template <typename Query>
std::optional<std::string> Text(unsigned size, Query query) {
  std::string buffer(size, '\0');
  if (query(buffer.data(), size) != 0) return std::nullopt;
  buffer.resize(buffer.find('\0') == std::string::npos ? size : buffer.find('\0'));
  return buffer;
}

DeviceFacts Cpu(std::string note) {
  DeviceFacts device;
  device.note = std::move(note);
  return device;
}

}  // namespace

std::string NvmlErrorText(const NvmlApi& api, const char* function, int code) {
  const char* text = api.error_string != nullptr ? api.error_string(code) : nullptr;
  return std::string(function) +
         " failed: " + (text != nullptr ? text : "NVML error " + std::to_string(code));
}

std::string FormatCudaDriverVersion(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

DeviceFacts DescribeBoard(const NvmlApi& api, void* handle) {
  DeviceFacts device;
  device.kind = "cuda";
  device.name =
      Text(kNameSize, [&](char* out, unsigned n) { return api.device_name(handle, out, n); });
  device.uuid =
      Text(kUuidSize, [&](char* out, unsigned n) { return api.device_uuid(handle, out, n); });
  device.vbios =
      Text(kVbiosSize, [&](char* out, unsigned n) { return api.vbios_version(handle, out, n); });
  device.driver =
      Text(kDriverSize, [&](char* out, unsigned n) { return api.driver_version(out, n); });
  int cuda_version = 0;
  if (api.cuda_driver_version(&cuda_version) == 0) {
    device.cuda_driver = FormatCudaDriverVersion(cuda_version);
  }
  unsigned limit_mw = 0;
  if (api.power_limit(handle, &limit_mw) == 0) device.power_limit_mw = limit_mw;
  return device;
}

Result<DeviceFacts> ReadDevice(const NvmlApi& api, const std::optional<std::string>& uuid) {
  int code = api.init();
  if (code != 0) {
    if (uuid) return Status::Unavailable(NvmlErrorText(api, "nvmlInit_v2", code));
    return Cpu(NvmlErrorText(api, "nvmlInit_v2", code));
  }
  void* handle = nullptr;
  if (uuid) {
    code = api.handle_by_uuid(uuid->c_str(), &handle);
    if (code != 0) {
      std::string message = NvmlErrorText(api, "nvmlDeviceGetHandleByUUID", code) + " for " + *uuid;
      api.shutdown();
      return Status::Unavailable(message);
    }
  } else {
    unsigned count = 0;
    code = api.device_count(&count);
    if (code != 0 || count == 0) {
      std::string note = code != 0 ? NvmlErrorText(api, "nvmlDeviceGetCount_v2", code)
                                   : std::string("the NVIDIA driver reports no device");
      api.shutdown();
      return Cpu(note);
    }
    code = api.handle_by_index(0, &handle);
    if (code != 0) {
      std::string note = NvmlErrorText(api, "nvmlDeviceGetHandleByIndex_v2", code);
      api.shutdown();
      return Cpu(note);
    }
  }

  DeviceFacts device = DescribeBoard(api, handle);
  api.shutdown();
  return device;
}

Result<NvmlApi> BindNvml(const char* library) {
  // Left open on purpose: the scorer reads energy through the same library, and unloading a
  // driver library is not something its makers promise to survive.
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Status::Unavailable(std::string("no NVIDIA driver: ") +
                               (why != nullptr ? why : library));
  }
  NvmlApi api{};
  std::string missing;
  auto bind = [&](auto& function, const char* name, bool needed = true) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(handle, name));
    if (function == nullptr && needed && missing.empty()) missing = name;
  };
  bind(api.init, "nvmlInit_v2");
  bind(api.shutdown, "nvmlShutdown");
  bind(api.error_string, "nvmlErrorString");
  bind(api.device_count, "nvmlDeviceGetCount_v2");
  bind(api.handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
  bind(api.handle_by_uuid, "nvmlDeviceGetHandleByUUID");
  bind(api.device_name, "nvmlDeviceGetName");
  bind(api.device_uuid, "nvmlDeviceGetUUID");
  bind(api.vbios_version, "nvmlDeviceGetVbiosVersion");
  bind(api.power_limit, "nvmlDeviceGetPowerManagementLimit");
  bind(api.driver_version, "nvmlSystemGetDriverVersion");
  bind(api.cuda_driver_version, "nvmlSystemGetCudaDriverVersion");
  bind(api.total_energy, "nvmlDeviceGetTotalEnergyConsumption", false);
  bind(api.utilization, "nvmlDeviceGetUtilizationRates", false);
  bind(api.running_processes, "nvmlDeviceGetComputeRunningProcesses_v3", false);
  if (api.running_processes == nullptr) {
    bind(api.running_processes, "nvmlDeviceGetComputeRunningProcesses_v2", false);
  }
  bind(api.memory_info, "nvmlDeviceGetMemoryInfo", false);
  if (!missing.empty()) return Status::Unavailable(std::string(library) + " has no " + missing);
  return api;
}

Result<DeviceFacts> ProbeDevice(const std::optional<std::string>& uuid, const char* library) {
  Result<NvmlApi> api = BindNvml(library);
  if (!api.ok()) {
    if (uuid) {
      return Status::Unavailable(api.status().message() + "; cannot describe the board " + *uuid);
    }
    return Cpu(api.status().message());
  }
  return ReadDevice(*api, uuid);
}

}  // namespace ratchet
