// For black-box tests: the checkout they run against ($RATCHET_SOURCE_DIR, set by ctest) and
// whether this machine has a python3 that imports torch (the Python worker's interpreter).
#ifndef RATCHET_TESTS_SUPPORT_CHECKOUT_H_
#define RATCHET_TESTS_SUPPORT_CHECKOUT_H_

#include <cstdlib>
#include <optional>
#include <string>

#include "contract/python.h"

namespace ratchet {

inline std::string SourceDir() {
  const char* dir = std::getenv("RATCHET_SOURCE_DIR");
  return dir ? dir : ".";
}

inline bool HavePython() {
  static const bool have = FindPython(std::nullopt).ok();
  return have;
}

}  // namespace ratchet

#endif  // RATCHET_TESTS_SUPPORT_CHECKOUT_H_
