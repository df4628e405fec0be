// Helpers of the data tests: synthetic IDX files and pools, the real data folder when this
// machine has one, and environment changes scoped to a test (tests/support/ has the rest).
#ifndef RATCHET_TESTS_DATA_TEST_FILES_H_
#define RATCHET_TESTS_DATA_TEST_FILES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/pool.h"

namespace ratchet {
namespace datatest {

// An IDX images file: header (magic, count, rows, columns) then `pixels` (or count*rows*columns
// copies of `fill`).
std::string IdxImages(uint32_t magic, uint32_t count, uint32_t rows, uint32_t columns,
                      uint8_t fill);
// An IDX labels file: header (magic, count) then count labels, i % 10.
std::string IdxLabels(uint32_t magic, uint32_t count);
// The gzip of `bytes`.
std::string GzipBytes(const std::string& bytes);
void WriteBytes(const std::string& path, const std::string& bytes);

// A pool of 60,000 rows of 81 pseudo-random values in [0, 1] with labels 0..9, full rank.
Pool SyntheticPool(const std::string& name, uint64_t seed);

// The folder holding mnist/ on this machine ($RATCHET_DATA, else <checkout>/data), if any.
std::optional<std::string> RealDataFolder();

// Sets (or, given nullopt, unsets) an environment variable for a scope; restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> saved_;
};

}  // namespace datatest
}  // namespace ratchet

#endif  // RATCHET_TESTS_DATA_TEST_FILES_H_
