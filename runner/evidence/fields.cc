#include "evidence/fields.h"

#include <charconv>

namespace ratchet {

void FindingLines::Breaks(std::string where, std::string message) {
  lines_.push_back(where + ": " + message);
}

std::string FindingLines::Joined() const {
  std::string joined;
  for (const std::string& line : lines_) joined += (joined.empty() ? "" : "; ") + line;
  return joined;
}
namespace {

bool IsString(const Json& v) { return v.is_string(); }
bool IsNumber(const Json& v) { return v.is_number(); }
bool IsInteger(const Json& v) { return v.is_number_integer(); }
bool IsBool(const Json& v) { return v.is_boolean(); }
bool IsArray(const Json& v) { return v.is_array(); }
bool IsObjectValue(const Json& v) { return v.is_object(); }

}  // namespace

std::string ExactNumber(double value) {
  char text[64];
  auto [end, error] = std::to_chars(text, text + sizeof text, value);
  if (error != std::errc()) return "?";
  return std::string(text, end);
}

std::string JsonShown(const Json& value) {
  if (value.is_number_float()) return ExactNumber(value.get<double>());
  std::string text = value.dump();
  if (text.size() > 200) text = text.substr(0, 197) + "...";
  return text;
}

std::string FieldReader::Where(const std::string& path) const {
  return path.empty() ? file_ : file_ + ": " + path;
}

const Json* FieldReader::Find(const Json& object, const std::string& path, const std::string& key,
                              bool (*accept)(const Json&), const char* expected, bool nullable) {
  const std::string field = JoinPath(path, key);
  if (!object.is_object()) {
    failed_ = true;
    result_->Breaks(Where(path.empty() ? "the top level" : path),
                    "expected an object, found " + JsonTypeName(object));
    return nullptr;
  }
  auto found = object.find(key);
  if (found == object.end() || (found->is_null() && !nullable)) {
    failed_ = true;
    result_->Breaks(Where(field),
                    found == object.end() ? "missing" : std::string("null, expected ") + expected);
    return nullptr;
  }
  if (found->is_null()) return &*found;
  if (!accept(*found)) {
    failed_ = true;
    result_->Breaks(Where(field),
                    std::string("expected ") + expected + ", found " + JsonTypeName(*found));
    return nullptr;
  }
  return &*found;
}

std::optional<std::string> FieldReader::String(const Json& object, const std::string& path,
                                               const std::string& key) {
  const Json* value = Find(object, path, key, IsString, "a string", false);
  if (value == nullptr) return std::nullopt;
  return value->get<std::string>();
}

std::optional<double> FieldReader::Number(const Json& object, const std::string& path,
                                          const std::string& key) {
  const Json* value = Find(object, path, key, IsNumber, "a number", false);
  if (value == nullptr) return std::nullopt;
  return value->get<double>();
}

std::optional<int64_t> FieldReader::Integer(const Json& object, const std::string& path,
                                            const std::string& key) {
  const Json* value = Find(object, path, key, IsInteger, "an integer", false);
  if (value == nullptr) return std::nullopt;
  if (value->is_number_unsigned() && value->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    failed_ = true;
    result_->Breaks(Where(JoinPath(path, key)), "integer out of range: " + value->dump());
    return std::nullopt;
  }
  return value->get<int64_t>();
}

std::optional<bool> FieldReader::Bool(const Json& object, const std::string& path,
                                      const std::string& key) {
  const Json* value = Find(object, path, key, IsBool, "true or false", false);
  if (value == nullptr) return std::nullopt;
  return value->get<bool>();
}

const Json* FieldReader::Array(const Json& object, const std::string& path,
                               const std::string& key) {
  return Find(object, path, key, IsArray, "an array", false);
}

const Json* FieldReader::Object(const Json& object, const std::string& path,
                                const std::string& key) {
  return Find(object, path, key, IsObjectValue, "an object", false);
}

std::optional<std::optional<double>> FieldReader::NullableNumber(const Json& object,
                                                                 const std::string& path,
                                                                 const std::string& key) {
  const Json* value = Find(object, path, key, IsNumber, "a number or null", true);
  if (value == nullptr) return std::nullopt;
  if (value->is_null()) return std::optional<double>();
  return std::optional<double>(value->get<double>());
}

std::optional<std::optional<std::string>> FieldReader::NullableString(const Json& object,
                                                                      const std::string& path,
                                                                      const std::string& key) {
  const Json* value = Find(object, path, key, IsString, "a string or null", true);
  if (value == nullptr) return std::nullopt;
  if (value->is_null()) return std::optional<std::string>();
  return std::optional<std::string>(value->get<std::string>());
}

bool FieldReader::IsObject(const Json& value, const std::string& path) {
  if (value.is_object()) return true;
  failed_ = true;
  result_->Breaks(Where(path), "expected an object, found " + JsonTypeName(value));
  return false;
}

}  // namespace ratchet
