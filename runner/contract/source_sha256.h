// The hash of the scorer's sources (every file under runner/ but the tool's folders, and the
// top-level CMakeLists.txt), computed when this binary was built (source_sha256.cmake) and
// compiled in, so a contract names the exact source tree its scorer came from.
// docs/contract.md ("Source hash") gives the file list and the framing, which `sha256sum`
// reproduces.
#ifndef RATCHET_CONTRACT_SOURCE_SHA256_H_
#define RATCHET_CONTRACT_SOURCE_SHA256_H_

namespace ratchet {

// 64 lowercase hex characters.
const char* ScorerSourceSha256();
// How many files the hash covers.
int ScorerSourceFileCount();

}  // namespace ratchet

#endif  // RATCHET_CONTRACT_SOURCE_SHA256_H_
