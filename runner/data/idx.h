// The IDX files of a dataset's 60,000-image training split: reading them (raw or gzip), and
// checking their structure (magic, counts, exact size, labels 0..9) before anything trusts them.
// Every message says what was expected and what was found.
#ifndef RATCHET_DATA_IDX_H_
#define RATCHET_DATA_IDX_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace ratchet {

inline constexpr size_t kPoolRows = 60000;
inline constexpr size_t kImageSide = 28;
inline constexpr size_t kImagePixels = kImageSide * kImageSide;
inline constexpr uint32_t kIdxImagesMagic = 2051;  // unsigned bytes, 3 dimensions
inline constexpr uint32_t kIdxLabelsMagic = 2049;  // unsigned bytes, 1 dimension
inline constexpr size_t kIdxImagesHeader = 16;
inline constexpr size_t kIdxLabelsHeader = 8;
inline constexpr size_t kIdxImagesBytes =
    kIdxImagesHeader + kPoolRows * kImagePixels;                         // 47,040,016
inline constexpr size_t kIdxLabelsBytes = kIdxLabelsHeader + kPoolRows;  // 60,008
inline constexpr int kClasses = 10;

enum class IdxKind { kImages, kLabels };

// "images" or "labels".
const char* IdxKindName(IdxKind kind);
// The file name of a training split file: "train-images-idx3-ubyte", "train-labels-idx1-ubyte".
const char* IdxFileName(IdxKind kind);
size_t IdxFileBytes(IdxKind kind);

// Checks that `bytes` is the IDX file of `kind` for the training split; `what` names the file.
Status CheckIdx(std::string_view bytes, IdxKind kind, const std::string& what);

// The pixels (60000 x 28 x 28, row-major) or labels (60000) of a checked file.
inline const uint8_t* IdxPayload(std::string_view bytes, IdxKind kind) {
  return reinterpret_cast<const uint8_t*>(bytes.data()) +
         (kind == IdxKind::kImages ? kIdxImagesHeader : kIdxLabelsHeader);
}

// One IDX file as read from disk, decompressed when its name ends in ".gz".
struct IdxFile {
  std::string path;
  bool gzipped = false;
  std::string bytes;        // the decompressed IDX bytes, structure checked
  std::string gzip_sha256;  // of the file on disk, when gzipped
};

// Reads and checks `path`. Never reads more than one byte past the size an IDX file of `kind`
// has, nor keeps more decompressed bytes than that size, so a wrong or hostile file costs no more
// memory than a right one.
Result<IdxFile> ReadIdxFile(const std::string& path, IdxKind kind);

// Inflates gzip data (one or more members) of at most `limit` decompressed bytes, checked to its
// end (every member's CRC-32 and length). Data that decompresses to more is BadInput ("decompresses
// to more than `limit` bytes"), found without keeping more than `limit` bytes.
Result<std::string> Gunzip(std::string_view compressed, size_t limit, const std::string& what);

}  // namespace ratchet

#endif  // RATCHET_DATA_IDX_H_
