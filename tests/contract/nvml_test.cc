// The device probe: no driver gives a CPU lane; a driver is read through a stand-in NVML.
#include "contract/nvml.h"

#include <gtest/gtest.h>

#include <cstring>

#include "contract/contract.h"

namespace ratchet {
namespace {

// A stand-in driver with two boards. Each NVML call returns 0 on success.
struct FakeBoard {
  const char* uuid;
  const char* name;
};
FakeBoard g_boards[] = {{"GPU-aaaa", "NVIDIA H200"}, {"GPU-bbbb", "NVIDIA H100 80GB HBM3"}};
int g_init_result = 0;
unsigned g_count = 2;
int g_power_result = 0;
int g_shutdowns = 0;

int FakeInit() { return g_init_result; }
int FakeShutdown() { return ++g_shutdowns, 0; }
const char* FakeErrorString(int code) { return code == 9 ? "Driver Not Loaded" : "Unknown Error"; }
int FakeCount(unsigned* count) { return *count = g_count, 0; }
int FakeByIndex(unsigned index, void** handle) {
  if (index >= g_count) return 2;
  *handle = &g_boards[index];
  return 0;
}
int FakeByUuid(const char* uuid, void** handle) {
  for (FakeBoard& board : g_boards) {
    if (std::strcmp(board.uuid, uuid) == 0) return *handle = &board, 0;
  }
  return 6;  // NVML_ERROR_NOT_FOUND
}
int Copy(const char* text, char* out, unsigned size) {
  if (std::strlen(text) + 1 > size) return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  std::strcpy(out, text);
  return 0;
}
int FakeName(void* handle, char* out, unsigned size) {
  return Copy(static_cast<FakeBoard*>(handle)->name, out, size);
}
int FakeUuid(void* handle, char* out, unsigned size) {
  return Copy(static_cast<FakeBoard*>(handle)->uuid, out, size);
}
int FakeVbios(void*, char* out, unsigned size) { return Copy("96.00.99.00.01", out, size); }
int FakePower(void*, unsigned* mw) {
  return g_power_result != 0 ? g_power_result : (*mw = 700000, 0);
}
int FakeDriver(char* out, unsigned size) { return Copy("550.90.07", out, size); }
int FakeCudaDriver(int* version) { return *version = 12040, 0; }

class ContractNvml : public ::testing::Test {
 protected:
  void SetUp() override {
    g_init_result = 0;
    g_count = 2;
    g_power_result = 0;
    g_shutdowns = 0;
  }
  NvmlApi api_{FakeInit, FakeShutdown, FakeErrorString, FakeCount, FakeByIndex, FakeByUuid,
               FakeName, FakeUuid,     FakeVbios,       FakePower, FakeDriver,  FakeCudaDriver};
};

TEST_F(ContractNvml, NoDriverLibraryGivesACpuDevice) {
  Result<DeviceFacts> device = ProbeDevice(std::nullopt, "libratchet-no-such-nvml.so.1");
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  EXPECT_EQ(device->kind, "cpu");
  EXPECT_NE(device->note.find("libratchet-no-such-nvml.so.1"), std::string::npos) << device->note;
  MachineFacts machine;
  machine.device = *device;
  Result<Json> contract = BuildContract(LockedInputs(), machine);
  ASSERT_TRUE(contract.ok());
  EXPECT_EQ((*contract)["lane"]["device"], Json({{"kind", "cpu"}}));
}

TEST_F(ContractNvml, NoDriverLibraryIsAnErrorWhenABoardIsNamed) {
  Result<DeviceFacts> device = ProbeDevice(std::string("GPU-aaaa"), "libratchet-no-such-nvml.so.1");
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), Status::Code::kUnavailable);
  EXPECT_NE(device.status().message().find("GPU-aaaa"), std::string::npos);
}

TEST_F(ContractNvml, ReadsDeviceZeroWithoutAUuid) {
  Result<DeviceFacts> device = ReadDevice(api_, std::nullopt);
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  EXPECT_EQ(device->kind, "cuda");
  EXPECT_EQ(device->name, "NVIDIA H200");
  EXPECT_EQ(device->uuid, "GPU-aaaa");
  EXPECT_EQ(device->driver, "550.90.07");
  EXPECT_EQ(device->cuda_driver, "12.4");
  EXPECT_EQ(device->vbios, "96.00.99.00.01");
  EXPECT_EQ(device->power_limit_mw, 700000u);
  EXPECT_EQ(g_shutdowns, 1);

  MachineFacts machine;
  machine.device = *device;
  Result<Json> contract = BuildContract(LockedInputs(), machine);
  ASSERT_TRUE(contract.ok());
  // NVML knows no L2 size or SM count: without CUDA's answer (python.h) they are null.
  EXPECT_EQ((*contract)["lane"]["device"], Json({{"kind", "cuda"},
                                                 {"name", "NVIDIA H200"},
                                                 {"driver", "550.90.07"},
                                                 {"cuda_driver", "12.4"},
                                                 {"vbios", "96.00.99.00.01"},
                                                 {"power_limit_w", 700},
                                                 {"l2_bytes", nullptr},
                                                 {"sm_count", nullptr}}));
  // With it, both are lane facts: a board with another L2 or SM count is another lane.
  machine.device.l2_bytes = 62914560;
  machine.device.sm_count = 132;
  Result<Json> with_cuda = BuildContract(LockedInputs(), machine);
  ASSERT_TRUE(with_cuda.ok());
  EXPECT_EQ((*with_cuda)["lane"]["device"]["l2_bytes"], 62914560);
  EXPECT_EQ((*with_cuda)["lane"]["device"]["sm_count"], 132);
  EXPECT_NE((*with_cuda)["lane"]["id"], (*contract)["lane"]["id"]);
  EXPECT_EQ((*contract)["observed"]["device_uuid"], "GPU-aaaa");
}

TEST_F(ContractNvml, ReadsTheBoardTheUuidNames) {
  Result<DeviceFacts> device = ReadDevice(api_, std::string("GPU-bbbb"));
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  EXPECT_EQ(device->name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(device->uuid, "GPU-bbbb");
}

TEST_F(ContractNvml, UnknownUuidIsAnError) {
  Result<DeviceFacts> device = ReadDevice(api_, std::string("GPU-cccc"));
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.status().message().find("GPU-cccc"), std::string::npos);
  EXPECT_NE(device.status().message().find("nvmlDeviceGetHandleByUUID"), std::string::npos);
  EXPECT_EQ(g_shutdowns, 1);
}

TEST_F(ContractNvml, DriverThatDoesNotInitializeGivesACpuDevice) {
  g_init_result = 9;
  Result<DeviceFacts> device = ReadDevice(api_, std::nullopt);
  ASSERT_TRUE(device.ok());
  EXPECT_EQ(device->kind, "cpu");
  EXPECT_NE(device->note.find("nvmlInit_v2 failed: Driver Not Loaded"), std::string::npos)
      << device->note;
}

TEST_F(ContractNvml, DriverWithoutBoardsGivesACpuDevice) {
  g_count = 0;
  Result<DeviceFacts> device = ReadDevice(api_, std::nullopt);
  ASSERT_TRUE(device.ok());
  EXPECT_EQ(device->kind, "cpu");
  EXPECT_FALSE(device->note.empty());
  EXPECT_EQ(g_shutdowns, 1);
}

TEST_F(ContractNvml, RefusedPowerLimitIsUnknown) {
  g_power_result = 3;  // NVML_ERROR_NOT_SUPPORTED
  Result<DeviceFacts> device = ReadDevice(api_, std::nullopt);
  ASSERT_TRUE(device.ok());
  EXPECT_FALSE(device->power_limit_mw.has_value());
  MachineFacts machine;
  machine.device = *device;
  Result<Json> contract = BuildContract(LockedInputs(), machine);
  ASSERT_TRUE(contract.ok());
  EXPECT_TRUE((*contract)["lane"]["device"]["power_limit_w"].is_null());
}

TEST(ContractNvmlVersion, CudaDriverVersionReadsAsMajorDotMinor) {
  EXPECT_EQ(FormatCudaDriverVersion(12040), "12.4");
  EXPECT_EQ(FormatCudaDriverVersion(11080), "11.8");
  EXPECT_EQ(FormatCudaDriverVersion(12000), "12.0");
}

}  // namespace
}  // namespace ratchet
