// The board through a stand-in NVML: the energy counter, utilization and compute contexts as the
// column reads them, the board chosen by the worker's uuid, and a machine without a driver.
#include "energy/board.h"

#include <gtest/gtest.h>

#include <cstring>

namespace ratchet {
namespace {

struct FakeDevice {
  const char* uuid;
  const char* name;
  unsigned long long energy_mj;
};
FakeDevice g_devices[] = {{"GPU-aaaa", "NVIDIA H200", 123456789ull},
                          {"GPU-bbbb", "NVIDIA H100 80GB HBM3", 5ull}};
unsigned g_count = 2;
int g_processes_code = 0;
unsigned g_processes = 0;
int g_shutdowns = 0;
int g_inits = 0;

int FakeInit() { return ++g_inits, 0; }
int FakeShutdown() { return ++g_shutdowns, 0; }
const char* FakeErrorString(int code) { return code == 3 ? "Not Supported" : "Unknown Error"; }
int FakeCount(unsigned* count) { return *count = g_count, 0; }
int FakeByIndex(unsigned index, void** handle) {
  if (index >= g_count) return 2;
  *handle = &g_devices[index];
  return 0;
}
int FakeByUuid(const char* uuid, void** handle) {
  for (FakeDevice& device : g_devices) {
    if (std::strcmp(device.uuid, uuid) == 0) return *handle = &device, 0;
  }
  return 6;
}
int Copy(const char* text, char* out, unsigned size) {
  if (std::strlen(text) + 1 > size) return 7;
  std::strcpy(out, text);
  return 0;
}
int FakeName(void* handle, char* out, unsigned size) {
  return Copy(static_cast<FakeDevice*>(handle)->name, out, size);
}
int FakeUuid(void* handle, char* out, unsigned size) {
  return Copy(static_cast<FakeDevice*>(handle)->uuid, out, size);
}
int FakeVbios(void*, char*, unsigned) { return 3; }
int FakePower(void*, unsigned* mw) { return *mw = 700000, 0; }
int FakeDriver(char* out, unsigned size) { return Copy("570.86.15", out, size); }
int FakeCudaDriver(int* version) { return *version = 12080, 0; }
int FakeEnergy(void* handle, unsigned long long* mj) {
  FakeDevice* device = static_cast<FakeDevice*>(handle);
  if (device->energy_mj == 5) return 3;  // the second board does not support the counter
  return *mj = device->energy_mj, 0;
}
int FakeUtilization(void*, unsigned* rates) { return rates[0] = 42, rates[1] = 7, 0; }
int FakeProcesses(void*, unsigned* count, void* buffer) {
  EXPECT_EQ(buffer, nullptr);
  if (g_processes_code == 7) *count = g_processes;
  return g_processes_code;
}

class EnergyBoardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_count = 2;
    g_processes_code = 0;
    g_processes = 0;
    g_shutdowns = 0;
    g_inits = 0;
    api_ = NvmlApi{FakeInit,   FakeShutdown,   FakeErrorString, FakeCount,       FakeByIndex,
                   FakeByUuid, FakeName,       FakeUuid,        FakeVbios,       FakePower,
                   FakeDriver, FakeCudaDriver, FakeEnergy,      FakeUtilization, FakeProcesses};
  }
  NvmlApi api_{};
};

TEST_F(EnergyBoardTest, TheWorkersBoardIsChosenByItsUuid) {
  Result<std::unique_ptr<BoardDriver>> driver = OpenNvmlDriver(api_);
  ASSERT_TRUE(driver.ok()) << driver.status().message();
  Result<std::unique_ptr<Board>> board = (*driver)->Select(std::string("GPU-aaaa"));
  ASSERT_TRUE(board.ok()) << board.status().message();
  EXPECT_EQ(*(*board)->EnergyMj(), 123456789u);
  EXPECT_EQ(*(*board)->Utilization(), 42);
  EXPECT_EQ((*board)->Describe(), (Json{{"name", "NVIDIA H200"},
                                        {"uuid", "GPU-aaaa"},
                                        {"vbios", nullptr},
                                        {"driver", "570.86.15"},
                                        {"power_limit_w", 700.0}}));
  // The other board's counter is refused, by name.
  Result<std::unique_ptr<Board>> other = (*driver)->Select(std::string("GPU-bbbb"));
  ASSERT_TRUE(other.ok());
  Result<uint64_t> refused = (*other)->EnergyMj();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "nvmlDeviceGetTotalEnergyConsumption failed: Not Supported");
  driver->reset();
  EXPECT_EQ(g_inits, 1);
  EXPECT_EQ(g_shutdowns, 1);
}

TEST_F(EnergyBoardTest, WithoutAUuidOnlyASingleBoardCanBeChosen) {
  Result<std::unique_ptr<BoardDriver>> driver = OpenNvmlDriver(api_);
  ASSERT_TRUE(driver.ok());
  Result<std::unique_ptr<Board>> two = (*driver)->Select(std::nullopt);
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.status().message(), "cannot tell which of 2 GPUs the method runs on");
  Result<std::unique_ptr<Board>> unknown = (*driver)->Select(std::string("GPU-zzzz"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("the driver does not know GPU-zzzz"),
            std::string::npos);
  g_count = 1;
  Result<std::unique_ptr<Board>> one = (*driver)->Select(std::nullopt);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ((*one)->Describe()["name"], "NVIDIA H200");
}

// The seed's reading: 0 on success, the count when NVML refuses the empty buffer (7), unknown
// for any other answer or without the function.
TEST_F(EnergyBoardTest, ComputeContextsAreCountedWithANullBuffer) {
  Result<std::unique_ptr<BoardDriver>> driver = OpenNvmlDriver(api_);
  ASSERT_TRUE(driver.ok());
  std::unique_ptr<Board> board = std::move((*driver)->Select(std::string("GPU-aaaa"))).value();
  EXPECT_EQ(board->Contexts(), std::optional<int64_t>(0));
  g_processes_code = 7;
  g_processes = 2;
  EXPECT_EQ(board->Contexts(), std::optional<int64_t>(2));
  g_processes_code = 3;
  EXPECT_EQ(board->Contexts(), std::nullopt);
  api_.running_processes = nullptr;
  Result<std::unique_ptr<BoardDriver>> older = OpenNvmlDriver(api_);
  ASSERT_TRUE(older.ok());
  EXPECT_EQ((*older)->Select(std::string("GPU-aaaa")).value()->Contexts(), std::nullopt);
}

TEST_F(EnergyBoardTest, ADriverWithoutTheCounterCannotMeasure) {
  api_.total_energy = nullptr;
  Result<std::unique_ptr<BoardDriver>> driver = OpenNvmlDriver(api_);
  ASSERT_FALSE(driver.ok());
  EXPECT_NE(driver.status().message().find("nvmlDeviceGetTotalEnergyConsumption"),
            std::string::npos);
  EXPECT_EQ(g_inits, 0);
}

TEST(EnergyBoardNoDriverTest, AMachineWithoutNvmlSaysSo) {
  Result<std::unique_ptr<BoardDriver>> driver = OpenNvml("libratchet-no-such-nvml.so.1");
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().code(), Status::Code::kUnavailable);
  EXPECT_EQ(driver.status().message().rfind("no NVIDIA driver: libratchet-no-such-nvml.so.1", 0),
            0u)
      << driver.status().message();
}

}  // namespace
}  // namespace ratchet
