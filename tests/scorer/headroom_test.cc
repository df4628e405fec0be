// Whether a method may start while the last call's worker is still being torn down: the memory
// readings and the rule (at least half free).
#include "scorer/headroom.h"

#include <gtest/gtest.h>

#include <cstring>

namespace ratchet {
namespace {

TEST(Headroom, ThreeQuartersFreeIsAmpleAndLessIsNot) {
  EXPECT_TRUE(Ample({100, 75}));
  EXPECT_TRUE(Ample({100, 100}));
  EXPECT_FALSE(Ample({100, 74}));
  EXPECT_FALSE(Ample({100, 50}));
  EXPECT_FALSE(Ample({0, 0})) << "no memory read is never ample";
}

TEST(Headroom, MeminfoGivesTotalAndAvailableInBytes) {
  Result<MemoryReading> reading = ParseMeminfo(
      "MemTotal:       24576000 kB\nMemFree:          100000 kB\nMemAvailable:   20000000 kB\n"
      "Buffers:           1000 kB\n");
  ASSERT_TRUE(reading.ok()) << reading.status().message();
  EXPECT_EQ(reading->total_bytes, 24576000ull * 1024);
  EXPECT_EQ(reading->free_bytes, 20000000ull * 1024) << "MemAvailable, not MemFree";
  EXPECT_TRUE(Ample(*reading));
}

TEST(Headroom, MeminfoWithoutAvailableIsAnError) {
  Result<MemoryReading> reading = ParseMeminfo("MemTotal: 1000 kB\nMemFree: 900 kB\n");
  ASSERT_FALSE(reading.ok());
  EXPECT_NE(reading.status().message().find("MemAvailable"), std::string::npos);
}

TEST(Headroom, TheHostGaugeReadsThisMachine) {
  std::unique_ptr<MemoryGauge> gauge = HostMemoryGauge();
  Result<MemoryReading> reading = gauge->Read();
  ASSERT_TRUE(reading.ok()) << reading.status().message();
  EXPECT_GT(reading->total_bytes, 0u);
  EXPECT_LE(reading->free_bytes, reading->total_bytes);
  EXPECT_EQ(gauge->Name(), "host");
}

// A stand-in NVML with one board, whose memory the test sets.
unsigned long long g_total = 0, g_free = 0;
int g_inits = 0, g_shutdowns = 0;
int g_board = 0;
int FakeInit() { return ++g_inits, 0; }
int FakeShutdown() { return ++g_shutdowns, 0; }
const char* FakeError(int) { return "Not Found"; }
int FakeByUuid(const char* uuid, void** handle) {
  if (std::strcmp(uuid, "GPU-aaaa") != 0) return 6;
  *handle = &g_board;
  return 0;
}
int FakeMemory(void* handle, unsigned long long* memory) {
  if (handle != &g_board) return 999;
  memory[0] = g_total;
  memory[1] = g_free;
  memory[2] = g_total - g_free;
  return 0;
}

NvmlApi FakeApi() {
  NvmlApi api{};
  api.init = FakeInit;
  api.shutdown = FakeShutdown;
  api.error_string = FakeError;
  api.handle_by_uuid = FakeByUuid;
  api.memory_info = FakeMemory;
  return api;
}

TEST(Headroom, TheBoardGaugeReadsTheBoardOfTheUuidAndShutsNvmlDown) {
  g_inits = g_shutdowns = 0;
  g_total = 140ull << 30;
  g_free = 130ull << 30;
  {
    Result<std::unique_ptr<MemoryGauge>> gauge = BoardMemoryGauge(FakeApi(), "GPU-aaaa");
    ASSERT_TRUE(gauge.ok()) << gauge.status().message();
    EXPECT_EQ((*gauge)->Name(), "GPU-aaaa");
    Result<MemoryReading> reading = (*gauge)->Read();
    ASSERT_TRUE(reading.ok()) << reading.status().message();
    EXPECT_EQ(reading->total_bytes, g_total);
    EXPECT_EQ(reading->free_bytes, g_free);
    EXPECT_TRUE(Ample(*reading));
    g_free = 100ull << 30;  // a method holding more than a quarter of the board
    reading = (*gauge)->Read();
    ASSERT_TRUE(reading.ok());
    EXPECT_FALSE(Ample(*reading));
    EXPECT_EQ(g_shutdowns, 0);
  }
  EXPECT_EQ(g_inits, 1);
  EXPECT_EQ(g_shutdowns, 1) << "NVML is shut down with the gauge";
}

TEST(Headroom, AnUnknownBoardOrAMissingFunctionGivesNoGauge) {
  g_inits = g_shutdowns = 0;
  Result<std::unique_ptr<MemoryGauge>> unknown = BoardMemoryGauge(FakeApi(), "GPU-zzzz");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("nvmlDeviceGetHandleByUUID"), std::string::npos)
      << unknown.status().message();
  EXPECT_EQ(g_shutdowns, g_inits) << "NVML is shut down again";
  NvmlApi without = FakeApi();
  without.memory_info = nullptr;
  Result<std::unique_ptr<MemoryGauge>> missing = BoardMemoryGauge(without, "GPU-aaaa");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nvmlDeviceGetMemoryInfo"), std::string::npos);
}

}  // namespace
}  // namespace ratchet
