// SHA-256 over OpenSSL's EVP interface, streaming, so that a dataset or a binary of any size
// is hashed in one pass with constant memory. Digests travel as lowercase hex.
#ifndef RATCHET_CORE_SHA256_H_
#define RATCHET_CORE_SHA256_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace ratchet {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(const void* data, size_t size);
  void Update(std::string_view data) { Update(data.data(), data.size()); }
  // The digest of everything given so far, as 64 lowercase hex characters. Ends the stream.
  std::string HexDigest();
  void Digest(uint8_t out[32]);

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

std::string Sha256Hex(std::string_view data);
// Streams the file; the error names the path and the syscall.
Result<std::string> Sha256File(const std::string& path);

// HMAC-SHA256(key, message), 32 raw bytes.
std::string HmacSha256(std::string_view key, std::string_view message);

std::string HexEncode(const void* data, size_t size);
inline std::string HexEncode(std::string_view bytes) {
  return HexEncode(bytes.data(), bytes.size());
}
// Lowercase or uppercase hex of an even length; anything else is an error naming `what`.
Result<std::string> HexDecode(std::string_view hex, const std::string& what);

}  // namespace ratchet

#endif  // RATCHET_CORE_SHA256_H_
