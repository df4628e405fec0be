// A temporary folder for a test, removed with everything in it when the test ends.
#ifndef RATCHET_TESTS_SUPPORT_TEMP_DIR_H_
#define RATCHET_TESTS_SUPPORT_TEMP_DIR_H_

#include <cstdlib>
#include <filesystem>
#include <string>

namespace ratchet {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ratchet-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace ratchet

#endif  // RATCHET_TESTS_SUPPORT_TEMP_DIR_H_
