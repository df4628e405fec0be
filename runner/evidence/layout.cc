#include "evidence/layout.h"

#include <cstdio>
#include <set>

#include "core/canonical_json.h"
#include "core/sha256.h"

namespace ratchet {
namespace {

constexpr size_t kMaxPathBytes = 4096;
constexpr size_t kMaxPartBytes = 255;

bool PlainCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '+' || c == '@' || c == '=' || c == '-';
}

// A name from outside shown as a JSON string: a newline or a control character is escaped, a byte
// that is not UTF-8 replaced, so that no name starts a line of its own in a message.
std::string Quoted(const std::string& text) {
  return Json(text).dump(-1, ' ', false, Json::error_handler_t::replace);
}

// A character for a message: itself when printable, else its code.
std::string Shown(char c) {
  if (c > ' ' && c < 127) return std::string("'") + c + "'";
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "0x%02x", static_cast<unsigned char>(c));
  return buffer;
}

}  // namespace

bool IsRunStatus(const std::string& status) {
  return status == kStatusComplete || status == kStatusInterrupted || status == kStatusFailed;
}

Status CheckFunctionName(const std::string& name) {
  bool identifier = !name.empty() && name.size() <= 255 && !(name[0] >= '0' && name[0] <= '9');
  for (char c : name) {
    identifier = identifier && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                (c >= '0' && c <= '9') || c == '_');
  }
  if (identifier) return Status::Ok();
  return Status::BadInput("the function name " + Quoted(name) +
                          " is not an identifier: a function is named with A-Z a-z 0-9 _ only, "
                          "not starting with a digit");
}

Status CheckEvidencePath(const std::string& relative) {
  const std::string what = "the evidence path " + Quoted(relative);
  if (relative.empty()) return Status::BadInput("an evidence path is empty");
  if (relative.size() > kMaxPathBytes) {
    return Status::BadInput(what + " is longer than " + std::to_string(kMaxPathBytes) + " bytes");
  }
  if (relative.front() == '/') return Status::BadInput(what + " is absolute; it must be relative");
  size_t start = 0;
  while (start <= relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string::npos) end = relative.size();
    const std::string part = relative.substr(start, end - start);
    if (part.empty()) return Status::BadInput(what + " has an empty part");
    if (part.front() == '.') {
      return Status::BadInput(what + " has the part " + Quoted(part) +
                              ", which starts with '.' (no hidden names, no \".\" or \"..\")");
    }
    if (part.size() > kMaxPartBytes) {
      return Status::BadInput(what + " has a part longer than " + std::to_string(kMaxPartBytes) +
                              " bytes");
    }
    for (char c : part) {
      if (!PlainCharacter(c)) {
        return Status::BadInput(what + " holds the character " + Shown(c) +
                                "; names use only A-Z a-z 0-9 . _ + @ = -");
      }
    }
    start = end + 1;
  }
  return Status::Ok();
}

std::string RunFolder(const std::string& record_id, int run) {
  return std::string(kRecordsFolder) + "/" + record_id + "/run-" + std::to_string(run);
}

std::string CallNumber(int call) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%02d", call);
  return buffer;
}

Result<std::string> EvidenceJsonText(const Json& value, const std::string& what) {
  // The canonical form checks what the indented form would silently write as null or throw on.
  Result<std::string> canonical = CanonicalJson(value);
  if (!canonical.ok()) return canonical.status().Annotate(what);
  try {
    return value.dump(2, ' ', false, Json::error_handler_t::strict) + "\n";
  } catch (const Json::exception& error) {
    return Status::BadInput(what + ": " + error.what());
  }
}

Json RunStatusJson(const RunStatusFile& status) {
  return Json{{"schema", kStatusSchema},
              {"status", status.status},
              {"exit_code", status.exit_code},
              {"message", status.message}};
}

Result<RunStatusFile> ParseRunStatus(std::string_view text, const std::string& what) {
  Result<Json> parsed = ParseJson(text, what);
  if (!parsed.ok()) return parsed.status();
  const Json& json = *parsed;
  if (!json.is_object()) return Status::BadInput(what + ": the top is not an object");
  static const std::set<std::string> kFields = {"schema", "status", "exit_code", "message"};
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (!kFields.count(it.key())) {
      return Status::BadInput(what + ": unknown field \"" + it.key() + "\"");
    }
  }
  for (const std::string& field : kFields) {
    if (!json.contains(field))
      return Status::BadInput(what + ": field \"" + field + "\" is missing");
  }
  if (json["schema"] != kStatusSchema) {
    return Status::BadInput(what + ": field \"schema\" is " + json["schema"].dump() +
                            ", expected \"" + kStatusSchema + "\"");
  }
  RunStatusFile out;
  if (!json["status"].is_string() || !IsRunStatus(json["status"].get<std::string>())) {
    return Status::BadInput(what + ": field \"status\" is " + json["status"].dump() +
                            ", expected \"complete\", \"interrupted\" or \"failed\"");
  }
  out.status = json["status"].get<std::string>();
  const Json& code = json["exit_code"];
  if (!code.is_number_integer() || code.get<int64_t>() < 0 || code.get<int64_t>() > 255) {
    return Status::BadInput(what + ": field \"exit_code\" is " + code.dump() +
                            ", expected an integer 0-255");
  }
  out.exit_code = static_cast<int>(code.get<int64_t>());
  if (!json["message"].is_string()) {
    return Status::BadInput(what + ": field \"message\" is not a string");
  }
  out.message = json["message"].get<std::string>();
  return out;
}

Status CheckLowerHex64(const std::string& hex, const std::string& what) {
  if (hex.size() != kHex64Digits) {
    return Status::BadInput(what + " has " + std::to_string(hex.size()) + " characters, expected " +
                            std::to_string(kHex64Digits) + " lowercase hex digits");
  }
  for (char c : hex) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return Status::BadInput(what + " holds " + Shown(c) + "; expected lowercase hex digits");
    }
  }
  return Status::Ok();
}

Result<std::string> ParseSeedFile(std::string_view text, const std::string& what) {
  if (text.empty() || text.back() != '\n') {
    return Status::BadInput(what + " does not end with a newline");
  }
  std::string hex(text.substr(0, text.size() - 1));
  RATCHET_RETURN_IF_ERROR(CheckLowerHex64(hex, what));
  return hex;
}

bool SeedMatchesCommit(const std::string& seed_hex, const std::string& commit_hex) {
  Result<std::string> seed = HexDecode(seed_hex, "the seed");
  return seed.ok() && Sha256Hex(*seed) == commit_hex;
}

}  // namespace ratchet
