#include "data/idx.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "core/file.h"
#include "core/sha256.h"

namespace ratchet {
namespace {

uint32_t BigEndian32(const char* p) {
  const auto* b = reinterpret_cast<const uint8_t*>(p);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string Bytes(size_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

}  // namespace

const char* IdxKindName(IdxKind kind) { return kind == IdxKind::kImages ? "images" : "labels"; }

const char* IdxFileName(IdxKind kind) {
  return kind == IdxKind::kImages ? "train-images-idx3-ubyte" : "train-labels-idx1-ubyte";
}

size_t IdxFileBytes(IdxKind kind) {
  return kind == IdxKind::kImages ? kIdxImagesBytes : kIdxLabelsBytes;
}

Status CheckIdx(std::string_view bytes, IdxKind kind, const std::string& what) {
  const bool images = kind == IdxKind::kImages;
  const uint32_t want_magic = images ? kIdxImagesMagic : kIdxLabelsMagic;
  const size_t header = images ? kIdxImagesHeader : kIdxLabelsHeader;
  const std::string expected_kind = std::string("an IDX ") + IdxKindName(kind) + " file (magic " +
                                    std::to_string(want_magic) + ")";
  if (bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x1f &&
      static_cast<uint8_t>(bytes[1]) == 0x8b) {
    return Status::BadInput(what +
                            " is gzip-compressed but its name does not end in .gz; expected " +
                            expected_kind + ": rename it to end in .gz or decompress it");
  }
  if (bytes.size() < 4) {
    return Status::BadInput(what + " is " + Bytes(bytes.size()) + " long; expected " +
                            expected_kind + " of " + Bytes(IdxFileBytes(kind)));
  }
  const uint32_t magic = BigEndian32(bytes.data());
  if (magic != want_magic) {
    std::string found = "magic " + std::to_string(magic);
    if (magic == kIdxImagesMagic) found += ", an IDX images file";
    if (magic == kIdxLabelsMagic) found += ", an IDX labels file";
    return Status::BadInput(what + ": expected " + expected_kind + ", found " + found);
  }
  if (bytes.size() < header) {
    return Status::BadInput(what + " is truncated: " + Bytes(bytes.size()) +
                            ", shorter than the IDX header (" + Bytes(header) + ")");
  }
  const uint32_t count = BigEndian32(bytes.data() + 4);
  if (images) {
    const uint32_t rows = BigEndian32(bytes.data() + 8), columns = BigEndian32(bytes.data() + 12);
    if (count != kPoolRows || rows != kImageSide || columns != kImageSide) {
      return Status::BadInput(what + " holds " + std::to_string(count) + " images of " +
                              std::to_string(rows) + "x" + std::to_string(columns) +
                              "; expected the training split: 60000 images of 28x28");
    }
  } else if (count != kPoolRows) {
    return Status::BadInput(what + " holds " + std::to_string(count) +
                            " labels; expected the training split: 60000 labels");
  }
  const size_t want_size = IdxFileBytes(kind);
  if (bytes.size() < want_size) {
    return Status::BadInput(what + " is truncated: " + Bytes(bytes.size()) + ", expected " +
                            Bytes(want_size) + " for 60000 " + IdxKindName(kind));
  }
  if (bytes.size() > want_size) {
    return Status::BadInput(what + " has bytes after its data: expected exactly " +
                            Bytes(want_size) + " for 60000 " + IdxKindName(kind) + ", found more");
  }
  if (!images) {
    const uint8_t* labels = IdxPayload(bytes, kind);
    for (size_t i = 0; i < kPoolRows; ++i) {
      if (labels[i] >= kClasses) {
        return Status::BadInput(what + ": label " + std::to_string(i) + " is " +
                                std::to_string(labels[i]) + "; labels are 0..9");
      }
    }
  }
  return Status::Ok();
}

Result<std::string> Gunzip(std::string_view compressed, size_t limit, const std::string& what) {
  z_stream stream;
  std::memset(&stream, 0, sizeof stream);
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {
    return Status::Internal("zlib inflateInit2 failed for " + what);
  }
  std::string out(limit, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(limit);
  Status status;
  for (;;) {
    int code = inflate(&stream, Z_NO_FLUSH);
    if (code == Z_STREAM_END) {
      // gzip allows several members one after another; `gzip -d` joins them.
      if (stream.avail_in == 0 || stream.avail_out == 0) break;
      if (inflateReset(&stream) != Z_OK) {
        status = Status::Internal("zlib inflateReset failed for " + what);
        break;
      }
      continue;
    }
    if (code == Z_OK) {
      if (stream.avail_out == 0) break;
      continue;
    }
    if (code == Z_BUF_ERROR && stream.avail_out == 0) break;
    if (code == Z_BUF_ERROR) {
      status = Status::BadInput(what + " is a truncated gzip file (it ends inside a member)");
    } else {
      status = Status::BadInput(what + " is not valid gzip data: " +
                                (stream.msg ? stream.msg : "zlib error " + std::to_string(code)));
    }
    break;
  }
  const size_t produced = limit - stream.avail_out;
  inflateEnd(&stream);
  if (!status.ok()) return status;
  out.resize(produced);
  return out;
}

Result<IdxFile> ReadIdxFile(const std::string& path, IdxKind kind) {
  IdxFile file;
  file.path = path;
  file.gzipped = EndsWith(path, ".gz");
  const size_t limit = IdxFileBytes(kind) + 1;
  if (file.gzipped) {
    // A gzip file is never much larger than its content, even when stored uncompressed.
    const size_t compressed_limit = limit + (1 << 20);
    Result<std::string> compressed = ReadFile(path, compressed_limit);
    if (!compressed.ok()) return compressed.status();
    if (compressed->size() == compressed_limit) {
      return Status::BadInput(path + " is larger than any gzip file of an IDX " +
                              IdxKindName(kind) + " file of the training split (" +
                              Bytes(IdxFileBytes(kind)) + " decompressed)");
    }
    file.gzip_sha256 = Sha256Hex(*compressed);
    Result<std::string> bytes = Gunzip(*compressed, limit, path);
    if (!bytes.ok()) return bytes.status();
    file.bytes = std::move(bytes).value();
    RATCHET_RETURN_IF_ERROR(CheckIdx(file.bytes, kind, path + " (decompressed)"));
  } else {
    Result<std::string> bytes = ReadFile(path, limit);
    if (!bytes.ok()) return bytes.status();
    file.bytes = std::move(bytes).value();
    RATCHET_RETURN_IF_ERROR(CheckIdx(file.bytes, kind, path));
  }
  return file;
}

}  // namespace ratchet
