// The NVIDIA driver's management library, as the parent uses it: the device of a lane, and the
// board's energy counter, utilization and compute contexts for the energy column. NVML is opened
// with dlopen("libnvidia-ml.so.1"), never linked, so the parent never loads CUDA and a machine
// without a driver is a CPU lane, not an error. BindNvml is the one place that binds it.
#ifndef RATCHET_CONTRACT_NVML_H_
#define RATCHET_CONTRACT_NVML_H_

#include <optional>
#include <string>

#include "contract/facts.h"
#include "core/status.h"

namespace ratchet {

inline constexpr char kNvmlLibrary[] = "libnvidia-ml.so.1";

// NVML_ERROR_INSUFFICIENT_SIZE: a list query's buffer is too small; the count is then set.
inline constexpr int kNvmlInsufficientSize = 7;

// The part of NVML the parent reads, as the C functions it exports (nvmlReturn_t is an int,
// 0 for success; nvmlDevice_t an opaque pointer), so a test can stand in for a driver. The
// energy column's functions come last; a driver without them still describes a lane.
struct NvmlApi {
  int (*init)();                                 // nvmlInit_v2
  int (*shutdown)();                             // nvmlShutdown
  const char* (*error_string)(int);              // nvmlErrorString
  int (*device_count)(unsigned*);                // nvmlDeviceGetCount_v2
  int (*handle_by_index)(unsigned, void**);      // nvmlDeviceGetHandleByIndex_v2
  int (*handle_by_uuid)(const char*, void**);    // nvmlDeviceGetHandleByUUID
  int (*device_name)(void*, char*, unsigned);    // nvmlDeviceGetName
  int (*device_uuid)(void*, char*, unsigned);    // nvmlDeviceGetUUID
  int (*vbios_version)(void*, char*, unsigned);  // nvmlDeviceGetVbiosVersion
  int (*power_limit)(void*, unsigned*);          // nvmlDeviceGetPowerManagementLimit
  int (*driver_version)(char*, unsigned);        // nvmlSystemGetDriverVersion
  int (*cuda_driver_version)(int*);              // nvmlSystemGetCudaDriverVersion
  // The energy column's; nullptr where the library lacks them (and where a stand-in leaves
  // them out).
  // nvmlDeviceGetTotalEnergyConsumption: millijoules since the driver loaded.
  int (*total_energy)(void*, unsigned long long*) = nullptr;
  // nvmlDeviceGetUtilizationRates: {gpu, memory}, each a percent of the last sample period.
  int (*utilization)(void*, unsigned*) = nullptr;
  // nvmlDeviceGetComputeRunningProcesses_v3, else _v2: (device, count in/out, buffer).
  int (*running_processes)(void*, unsigned*, void*) = nullptr;
  // nvmlDeviceGetMemoryInfo: {total, free, used} in bytes (nvmlMemory_t). The scorer reads it
  // to tell whether a method may start while the last call's worker is still being torn down.
  int (*memory_info)(void*, unsigned long long*) = nullptr;
};

// Opens `library` (left loaded: a driver library is not promised to survive unloading) and binds
// every function of NvmlApi. Unavailable, naming the library and why, when it does not load or
// lacks a function a lane needs; the energy column's functions are nullptr when absent.
Result<NvmlApi> BindNvml(const char* library = kNvmlLibrary);

// "<function> failed: <NVML's text for code>".
std::string NvmlErrorText(const NvmlApi& api, const char* function, int code);

// The board `handle` names, read through `api` (initialized by the caller): kind "cuda", its
// name, uuid, VBIOS, driver, CUDA driver and power limit, each empty where the board refuses.
DeviceFacts DescribeBoard(const NvmlApi& api, void* handle);

// Reads the board `uuid` names, or device 0 without one, through `api` (initialized here and
// shut down before returning). A driver that does not initialize or has no device gives a CPU
// device whose note says why; a `uuid` the driver does not know is an error. A query the
// board refuses leaves its field empty (null in the contract).
Result<DeviceFacts> ReadDevice(const NvmlApi& api, const std::optional<std::string>& uuid);

// Opens `library` and reads the device through it. A library that does not load, or lacks a
// function, gives {"kind": "cpu"} with a note, unless a `uuid` was asked for: then the board
// the worker runs on cannot be described, which is an error (Unavailable).
Result<DeviceFacts> ProbeDevice(const std::optional<std::string>& uuid,
                                const char* library = kNvmlLibrary);

// NVML's CUDA driver version (1000 * major + 10 * minor) as "major.minor": 12040 -> "12.4".
std::string FormatCudaDriverVersion(int version);

}  // namespace ratchet

#endif  // RATCHET_CONTRACT_NVML_H_
