// A stand-in for the NVIDIA driver's libnvidia-ml.so.1, for black-box runs of `ratchet telemetry`
// on a machine without a GPU (its folder first on LD_LIBRARY_PATH; only ratchet's parent loads
// it). One idle board, "Fake NVML Board", whose counter climbs at 50 W.
#include <time.h>

#include <cstring>

namespace {

int g_board;  // the one handle

double Now() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

int Copy(const char* text, char* out, unsigned size) {
  if (std::strlen(text) + 1 > size) return 7;
  std::strcpy(out, text);
  return 0;
}

}  // namespace

extern "C" {

int nvmlInit_v2() { return 0; }
int nvmlShutdown() { return 0; }
const char* nvmlErrorString(int) { return "Fake Error"; }
int nvmlDeviceGetCount_v2(unsigned* count) { return *count = 1, 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** handle) {
  if (index != 0) return 2;
  *handle = &g_board;
  return 0;
}
int nvmlDeviceGetHandleByUUID(const char* uuid, void** handle) {
  if (std::strcmp(uuid, "GPU-fake") != 0) return 6;
  *handle = &g_board;
  return 0;
}
int nvmlDeviceGetName(void*, char* out, unsigned size) {
  return Copy("Fake NVML Board", out, size);
}
int nvmlDeviceGetUUID(void*, char* out, unsigned size) { return Copy("GPU-fake", out, size); }
int nvmlDeviceGetVbiosVersion(void*, char* out, unsigned size) { return Copy("0.0", out, size); }
int nvmlDeviceGetPowerManagementLimit(void*, unsigned* mw) { return *mw = 300000, 0; }
int nvmlSystemGetDriverVersion(char* out, unsigned size) { return Copy("999.99", out, size); }
int nvmlSystemGetCudaDriverVersion(int* version) { return *version = 12040, 0; }
int nvmlDeviceGetTotalEnergyConsumption(void*, unsigned long long* mj) {
  *mj = static_cast<unsigned long long>(Now() * 50.0 * 1e3);
  return 0;
}
int nvmlDeviceGetUtilizationRates(void*, unsigned* rates) { return rates[0] = 0, rates[1] = 0, 0; }
int nvmlDeviceGetComputeRunningProcesses_v3(void*, unsigned* count, void*) { return *count = 0, 0; }

}  // extern "C"
