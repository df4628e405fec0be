#include "core/status.h"

#include <cstring>

namespace ratchet {

Status Status::IOError(const std::string& what, int error_number) {
  return Status(Code::kIOError, what + ": " + std::strerror(error_number));
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return message_;
}

Status Status::Annotate(const std::string& context) const {
  if (ok()) return *this;
  return Status(code_, context + ": " + message_);
}

}  // namespace ratchet
