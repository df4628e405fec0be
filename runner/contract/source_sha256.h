// The hash of ratchet's own sources, computed when this binary was built (source_sha256.cmake)
// and compiled in, so a contract names the exact source tree its harness came from.
// docs/contract.md ("Source hash") gives the framing, which `sha256sum` reproduces.
#ifndef RATCHET_CONTRACT_SOURCE_SHA256_H_
#define RATCHET_CONTRACT_SOURCE_SHA256_H_

namespace ratchet {

// 64 lowercase hex characters.
const char* HarnessSourceSha256();
// How many files the hash covers.
int HarnessSourceFileCount();

}  // namespace ratchet

#endif  // RATCHET_CONTRACT_SOURCE_SHA256_H_
