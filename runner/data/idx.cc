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

std::string Bytes(size_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

}  // namespace

const char* IdxKindName(IdxKind kind) { return kind == IdxKind::kImages ? "images" : "labels"; }

const char* IdxFileName(IdxKind kind) {
  return kind == IdxKind::kImages ? "train-images-idx3-ubyte" : "train-labels-idx1-ubyte";
}

size_t IdxFileBytes(IdxKind kind) {
  return kind == IdxKind::kImages ? kIdxImagesBytes : kIdxLabelsBytes;
}

namespace {

// The start of CheckIdx: a gzip magic where none belongs, the IDX magic and the counts. It needs
// only the header, so it also judges the first bytes of a stream that decompresses to too many.
Status CheckIdxHeader(std::string_view bytes, IdxKind kind, const std::string& what) {
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
  return Status::Ok();
}

std::string TooMuchOutput(const std::string& what, size_t limit) {
  return what + " decompresses to more than " + Bytes(limit) + ": corrupt, or not this dataset";
}

// Inflates every gzip member of `compressed` into `*out`, at most `limit` bytes. When the output
// reaches the limit, inflation goes on into a small scratch buffer: `*more` is set as soon as a
// byte past the limit appears; otherwise the stream is inflated to its end, so that every
// member's CRC-32 and length are checked however exactly the output fills the limit.
Status Inflate(std::string_view compressed, size_t limit, const std::string& what, std::string* out,
               bool* more) {
  *more = false;
  z_stream stream;
  std::memset(&stream, 0, sizeof stream);
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {
    return Status::Internal("zlib inflateInit2 failed for " + what);
  }
  out->assign(limit, '\0');
  char scratch[256];
  bool in_scratch = false;
  size_t produced = 0;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  stream.next_out = reinterpret_cast<Bytef*>(out->data());
  stream.avail_out = static_cast<uInt>(limit);
  Status status;
  for (;;) {
    if (!in_scratch && stream.avail_out == 0) {
      in_scratch = true;
      stream.next_out = reinterpret_cast<Bytef*>(scratch);
      stream.avail_out = sizeof scratch;
    }
    const int code = inflate(&stream, Z_NO_FLUSH);
    if (in_scratch && stream.avail_out < sizeof scratch) {
      *more = true;
      break;
    }
    if (code == Z_STREAM_END) {
      // gzip allows several members one after another; `gzip -d` joins them.
      if (stream.avail_in == 0) break;
      if (inflateReset(&stream) != Z_OK) {
        status = Status::Internal("zlib inflateReset failed for " + what);
        break;
      }
      continue;
    }
    if (code == Z_OK) continue;
    if (code == Z_BUF_ERROR && stream.avail_in == 0) {
      status = Status::BadInput(what + " is a truncated gzip file (it ends inside a member)");
    } else {
      status = Status::BadInput(what + " is not valid gzip data: " +
                                (stream.msg ? stream.msg : "zlib error " + std::to_string(code)));
    }
    break;
  }
  produced = in_scratch ? limit : limit - stream.avail_out;
  inflateEnd(&stream);
  out->resize(produced);
  return status;
}

}  // namespace

Status CheckIdx(std::string_view bytes, IdxKind kind, const std::string& what) {
  RATCHET_RETURN_IF_ERROR(CheckIdxHeader(bytes, kind, what));
  const size_t want_size = IdxFileBytes(kind);
  if (bytes.size() < want_size) {
    return Status::BadInput(what + " is truncated: " + Bytes(bytes.size()) + ", expected " +
                            Bytes(want_size) + " for 60000 " + IdxKindName(kind));
  }
  if (bytes.size() > want_size) {
    return Status::BadInput(what + " has bytes after its data: expected exactly " +
                            Bytes(want_size) + " for 60000 " + IdxKindName(kind) + ", found more");
  }
  if (kind == IdxKind::kLabels) {
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
  std::string out;
  bool more = false;
  RATCHET_RETURN_IF_ERROR(Inflate(compressed, limit, what, &out, &more));
  if (more) return Status::BadInput(TooMuchOutput(what, limit));
  return out;
}

Result<IdxFile> ReadIdxFile(const std::string& path, IdxKind kind) {
  IdxFile file;
  file.path = path;
  file.gzipped = EndsWith(path, ".gz");
  const size_t want = IdxFileBytes(kind);
  if (file.gzipped) {
    // A gzip file is never much larger than its content, even when stored uncompressed.
    const size_t compressed_limit = want + 1 + (1 << 20);
    Result<std::string> compressed = ReadFile(path, compressed_limit);
    if (!compressed.ok()) return compressed.status();
    if (compressed->size() == compressed_limit) {
      return Status::BadInput(path + " is larger than any gzip file of an IDX " +
                              IdxKindName(kind) + " file of the training split (" + Bytes(want) +
                              " decompressed)");
    }
    file.gzip_sha256 = Sha256Hex(*compressed);
    bool more = false;
    RATCHET_RETURN_IF_ERROR(Inflate(*compressed, want, path, &file.bytes, &more));
    if (more) {
      // An IDX file of another kind or split says so in its header: the more useful message.
      RATCHET_RETURN_IF_ERROR(CheckIdxHeader(file.bytes, kind, path + " (decompressed)"));
      return Status::BadInput(TooMuchOutput(path, want));
    }
    RATCHET_RETURN_IF_ERROR(CheckIdx(file.bytes, kind, path + " (decompressed)"));
  } else {
    // One byte past the size, so that a longer file is seen as longer.
    Result<std::string> bytes = ReadFile(path, want + 1);
    if (!bytes.ok()) return bytes.status();
    file.bytes = std::move(bytes).value();
    RATCHET_RETURN_IF_ERROR(CheckIdx(file.bytes, kind, path));
  }
  return file;
}

}  // namespace ratchet
