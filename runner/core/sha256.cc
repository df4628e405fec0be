#include "core/sha256.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "core/file.h"

namespace ratchet {

struct Sha256::Context {
  EVP_MD_CTX* ctx = nullptr;
};

Sha256::Sha256() : context_(new Context) {
  context_->ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(context_->ctx, EVP_sha256(), nullptr);
}

Sha256::~Sha256() { EVP_MD_CTX_free(context_->ctx); }

void Sha256::Update(const void* data, size_t size) { EVP_DigestUpdate(context_->ctx, data, size); }

void Sha256::Digest(uint8_t out[32]) {
  unsigned int length = 0;
  EVP_DigestFinal_ex(context_->ctx, out, &length);
}

std::string Sha256::HexDigest() {
  uint8_t digest[32];
  Digest(digest);
  return HexEncode(digest, sizeof digest);
}

std::string Sha256Hex(std::string_view data) {
  Sha256 hash;
  hash.Update(data);
  return hash.HexDigest();
}

Result<std::string> Sha256File(const std::string& path) {
  Sha256 hash;
  Status status =
      ForEachChunk(path, 1 << 20, [&](const char* data, size_t size) { hash.Update(data, size); });
  if (!status.ok()) return status;
  return hash.HexDigest();
}

std::string HmacSha256(std::string_view key, std::string_view message) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), out, &length);
  return std::string(reinterpret_cast<const char*>(out), length);
}

std::string HexEncode(const void* data, size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  const auto* bytes = static_cast<const uint8_t*>(data);
  std::string out(size * 2, '0');
  for (size_t i = 0; i < size; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return out;
}

Result<std::string> HexDecode(std::string_view hex, const std::string& what) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) {
    return Status::BadInput(what + " has an odd number of hex digits (" +
                            std::to_string(hex.size()) + ")");
  }
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    int high = nibble(hex[2 * i]), low = nibble(hex[2 * i + 1]);
    if (high < 0 || low < 0) {
      return Status::BadInput(what + " is not hex: character " +
                              std::to_string(2 * i + (high < 0 ? 0 : 1)) + " is '" +
                              std::string(1, hex[2 * i + (high < 0 ? 0 : 1)]) + "'");
    }
    out[i] = static_cast<char>(high * 16 + low);
  }
  return out;
}

}  // namespace ratchet
