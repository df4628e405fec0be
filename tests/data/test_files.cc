#include "test_files.h"

#include <stdlib.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

#include "core/file.h"

namespace ratchet {
namespace datatest {
namespace {

void PutBigEndian(std::string& out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((value >> shift) & 0xff));
}

}  // namespace

std::string IdxImages(uint32_t magic, uint32_t count, uint32_t rows, uint32_t columns,
                      uint8_t fill) {
  std::string out;
  PutBigEndian(out, magic);
  PutBigEndian(out, count);
  PutBigEndian(out, rows);
  PutBigEndian(out, columns);
  out.append(static_cast<size_t>(count) * rows * columns, static_cast<char>(fill));
  return out;
}

std::string IdxLabels(uint32_t magic, uint32_t count) {
  std::string out;
  PutBigEndian(out, magic);
  PutBigEndian(out, count);
  for (uint32_t i = 0; i < count; ++i) out.push_back(static_cast<char>(i % 10));
  return out;
}

std::string GzipBytes(const std::string& bytes) {
  z_stream stream{};
  if (deflateInit2(&stream, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2");
  }
  std::string out(deflateBound(&stream, bytes.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  if (deflate(&stream, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate");
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("write " + path);
}

Pool SyntheticPool(const std::string& name, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  Pool pool;
  pool.name = name;
  pool.pixels.resize(kPoolRows * kPooledPixels);
  pool.labels.resize(kPoolRows);
  for (size_t i = 0; i < kPoolRows; ++i) {
    pool.labels[i] = static_cast<uint8_t>(random() % 10);
    for (size_t p = 0; p < kPooledPixels; ++p) {
      // Pixels of unequal spread, like real pooled images, plus some tied to the label.
      const float spread = 0.05f + 0.9f * static_cast<float>(p) / kPooledPixels;
      float value = 0.5f + spread * (uniform(random) - 0.5f);
      if (p % 9 == pool.labels[i] % 9) value = 0.5f * value + 0.4f;
      pool.pixels[i * kPooledPixels + p] = value;
    }
  }
  return pool;
}

std::optional<std::string> RealDataFolder() {
  std::vector<std::string> candidates;
  if (const char* data = std::getenv("RATCHET_DATA"); data && *data) candidates.push_back(data);
  if (const char* source = std::getenv("RATCHET_SOURCE_DIR"); source && *source) {
    candidates.push_back(std::string(source) + "/data");
  }
  for (const std::string& folder : candidates) {
    if (PathExists(folder + "/mnist/train-images-idx3-ubyte") ||
        PathExists(folder + "/mnist/train-images-idx3-ubyte.gz")) {
      return folder;
    }
  }
  return std::nullopt;
}

ScopedEnv::ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
  if (const char* old = std::getenv(name)) saved_ = old;
  if (value) {
    setenv(name, value->c_str(), 1);
  } else {
    unsetenv(name);
  }
}

ScopedEnv::~ScopedEnv() {
  if (saved_) {
    setenv(name_.c_str(), saved_->c_str(), 1);
  } else {
    unsetenv(name_.c_str());
  }
}

}  // namespace datatest
}  // namespace ratchet
