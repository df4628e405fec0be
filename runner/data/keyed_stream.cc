#include "data/keyed_stream.h"

#include <openssl/evp.h>

#include <cmath>
#include <cstring>

#include "core/sha256.h"

namespace ratchet {
namespace {

// Keystream is produced in chunks of whole ChaCha20 blocks (64 bytes).
constexpr size_t kChunkBytes = 64 * 64;
constexpr double kTwoPi = 6.283185307179586476925286766559;  // 2 * math.pi exactly

double UniformFromWord(uint64_t word) { return static_cast<double>(word >> 11) * 0x1.0p-53; }

}  // namespace

struct KeyedStream::Cipher {
  EVP_CIPHER_CTX* context = nullptr;
  ~Cipher() { EVP_CIPHER_CTX_free(context); }
};

Result<RunSeed> ParseRunSeed(std::string_view hex, const std::string& what) {
  if (hex.size() != 2 * kRunSeedBytes) {
    return Status::BadInput(what + " must be " + std::to_string(2 * kRunSeedBytes) +
                            " hex digits (a 32-byte run seed); found " +
                            std::to_string(hex.size()) + " characters");
  }
  Result<std::string> bytes = HexDecode(hex, what);
  if (!bytes.ok()) return bytes.status();
  RunSeed seed;
  std::memcpy(seed.bytes.data(), bytes->data(), kRunSeedBytes);
  return seed;
}

std::string RunSeedSha256(const RunSeed& seed) { return Sha256Hex(seed.view()); }

KeyedStream::KeyedStream() : cipher_(new Cipher), buffer_(kChunkBytes), position_(kChunkBytes) {}
KeyedStream::KeyedStream(KeyedStream&&) noexcept = default;
KeyedStream& KeyedStream::operator=(KeyedStream&&) noexcept = default;
KeyedStream::~KeyedStream() = default;

Result<KeyedStream> KeyedStream::FromKey(const uint8_t key[32]) {
  KeyedStream stream;
  // EVP_chacha20's 16-byte IV is the 32-bit little-endian block counter, then the 96-bit nonce.
  const uint8_t iv[16] = {0};
  stream.cipher_->context = EVP_CIPHER_CTX_new();
  if (stream.cipher_->context == nullptr ||
      EVP_EncryptInit_ex(stream.cipher_->context, EVP_chacha20(), nullptr, key, iv) != 1) {
    return Status::Internal("OpenSSL EVP_EncryptInit_ex(chacha20) failed");
  }
  return stream;
}

Result<KeyedStream> KeyedStream::ForLabel(const RunSeed& seed, std::string_view label) {
  const std::string key = HmacSha256(seed.view(), label);
  if (key.size() != 32)
    return Status::Internal("HMAC-SHA256 returned " + std::to_string(key.size()) + " bytes");
  return FromKey(reinterpret_cast<const uint8_t*>(key.data()));
}

void KeyedStream::Refill() {
  // ChaCha20 keystream is the encryption of zeros.
  std::memset(buffer_.data(), 0, buffer_.size());
  int length = 0;
  if (EVP_EncryptUpdate(cipher_->context, buffer_.data(), &length, buffer_.data(),
                        static_cast<int>(buffer_.size())) != 1 ||
      length != static_cast<int>(buffer_.size())) {
    if (status_.ok()) status_ = Status::Internal("OpenSSL EVP_EncryptUpdate(chacha20) failed");
  }
  position_ = 0;
}

uint64_t KeyedStream::NextWord() {
  if (position_ + 8 > buffer_.size()) Refill();
  uint64_t word = 0;
  for (int i = 7; i >= 0; --i) word = (word << 8) | buffer_[position_ + i];
  position_ += 8;
  return word;
}

uint64_t KeyedStream::UniformBelow(uint64_t n) {
  // 2^64 mod n, computed without 2^64: (2^64 - n) mod n.
  const uint64_t rejected = (0 - n) % n;
  for (;;) {
    const uint64_t word = NextWord();
    if (word >= rejected) return word % n;
  }
}

double KeyedStream::UniformDouble() { return UniformFromWord(NextWord()); }

void KeyedStream::FillNormals(double* out, size_t count) {
  for (size_t i = 0; i < count; i += 2) {
    const double u1 = UniformDouble();
    const double u2 = UniformDouble();
    const double radius = std::sqrt(-2.0 * std::log(1.0 - u1));  // 1 - u1 is in (0, 1]
    out[i] = radius * std::cos(kTwoPi * u2);
    if (i + 1 < count) out[i + 1] = radius * std::sin(kTwoPi * u2);
  }
}

std::vector<int64_t> KeyedStream::Sample(std::vector<int64_t> population, size_t k) {
  const size_t n = population.size();
  if (k > n) k = n;
  for (size_t i = 0; i < k; ++i) {
    const size_t j = i + static_cast<size_t>(UniformBelow(n - i));
    std::swap(population[i], population[j]);
  }
  population.resize(k);
  return population;
}

std::vector<int64_t> KeyedStream::Permutation(size_t n) {
  std::vector<int64_t> identity(n);
  for (size_t i = 0; i < n; ++i) identity[i] = static_cast<int64_t>(i);
  return Sample(std::move(identity), n);
}

}  // namespace ratchet
