// The run's randomness: a 32-byte run seed, committed by its sha256 before a run and revealed
// after it, from which every random choice is derived by a keyed stream per use (ChaCha20 keyed
// by HMAC-SHA256(seed, label)). docs/draws.md specifies it bit for bit for auditors.
#ifndef RATCHET_DATA_KEYED_STREAM_H_
#define RATCHET_DATA_KEYED_STREAM_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ratchet {

inline constexpr size_t kRunSeedBytes = 32;

struct RunSeed {
  std::array<uint8_t, kRunSeedBytes> bytes{};
  std::string_view view() const {
    return std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
};

// 64 hex digits; `what` names the value in messages ("--seed").
Result<RunSeed> ParseRunSeed(std::string_view hex, const std::string& what);
// sha256 of the 32 seed bytes, hex: what a run commits to before it reveals the seed.
std::string RunSeedSha256(const RunSeed& seed);

class KeyedStream {
 public:
  // The stream of one use of the seed: ChaCha20 (RFC 8439, 96-bit zero nonce, block counter
  // from zero) keyed by HMAC-SHA256(seed, label).
  static Result<KeyedStream> ForLabel(const RunSeed& seed, std::string_view label);
  // ChaCha20 under a raw 32-byte key (for known-answer tests of the cipher itself).
  static Result<KeyedStream> FromKey(const uint8_t key[32]);

  KeyedStream(KeyedStream&&) noexcept;
  KeyedStream& operator=(KeyedStream&&) noexcept;
  ~KeyedStream();

  // The next 8 keystream bytes as a little-endian integer.
  uint64_t NextWord();
  // Uniform in [0, n), n >= 1, unbiased: words below 2^64 mod n are rejected.
  uint64_t UniformBelow(uint64_t n);
  // Uniform in [0, 1): the top 53 bits of a word, times 2^-53.
  double UniformDouble();
  // `count` standard normals by Box-Muller, both outputs of each pair used in order; an odd
  // count discards the last pair's second value.
  void FillNormals(double* out, size_t count);
  // The first `k` entries (k at most the population's size) of a forward Fisher-Yates shuffle
  // of `population`: for i in 0..k-1, swap entry i with entry i + UniformBelow(size - i).
  std::vector<int64_t> Sample(std::vector<int64_t> population, size_t k);
  // Sample of all of 0..n-1: a uniform permutation.
  std::vector<int64_t> Permutation(size_t n);

  // Not ok only if OpenSSL failed to produce keystream (then the stream's output is garbage).
  const Status& status() const { return status_; }

 private:
  struct Cipher;
  KeyedStream();
  void Refill();

  std::unique_ptr<Cipher> cipher_;
  std::vector<uint8_t> buffer_;
  size_t position_ = 0;
  Status status_;
};

}  // namespace ratchet

#endif  // RATCHET_DATA_KEYED_STREAM_H_
