// Where the contract tests find the checkout: $RATCHET_SOURCE_DIR, or the folder the build was
// configured from.
#ifndef RATCHET_TESTS_CONTRACT_SOURCE_DIR_H_
#define RATCHET_TESTS_CONTRACT_SOURCE_DIR_H_

#include <cstdlib>
#include <string>

namespace ratchet {

inline std::string TestSourceDir() {
  const char* source = std::getenv("RATCHET_SOURCE_DIR");
  return source != nullptr && *source != '\0' ? source : RATCHET_CONTRACT_TEST_SOURCE_DIR;
}

}  // namespace ratchet

#endif  // RATCHET_TESTS_CONTRACT_SOURCE_DIR_H_
