#include "core/canonical_json.h"

#include <charconv>
#include <cmath>
#include <set>
#include <vector>

#include "core/sha256.h"

namespace ratchet {
namespace {

Status AppendCanonical(const Json& value, const std::string& path, std::string* out) {
  switch (value.type()) {
    case Json::value_t::null:
      *out += "null";
      return Status::Ok();
    case Json::value_t::boolean:
      *out += value.get<bool>() ? "true" : "false";
      return Status::Ok();
    case Json::value_t::number_integer:
      *out += std::to_string(value.get<int64_t>());
      return Status::Ok();
    case Json::value_t::number_unsigned:
      *out += std::to_string(value.get<uint64_t>());
      return Status::Ok();
    case Json::value_t::number_float: {
      double x = value.get<double>();
      if (!std::isfinite(x)) {
        return Status::BadInput("the value at " + (path.empty() ? std::string("the top") : path) +
                                " is not a finite number");
      }
      if (x == 0) x = 0;  // -0 and 0 are one value
      if (std::trunc(x) == x && std::fabs(x) < 9007199254740992.0) {
        *out += std::to_string(static_cast<int64_t>(x));
        return Status::Ok();
      }
      char buffer[32];
      auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
      out->append(buffer, result.ptr);
      return Status::Ok();
    }
    case Json::value_t::string:
      try {
        *out += Json(value.get<std::string>()).dump(-1, ' ', false, Json::error_handler_t::strict);
      } catch (const Json::exception&) {
        return Status::BadInput("the string at " + (path.empty() ? std::string("the top") : path) +
                                " is not valid UTF-8");
      }
      return Status::Ok();
    case Json::value_t::array: {
      *out += '[';
      size_t index = 0;
      for (const Json& item : value) {
        if (index) *out += ',';
        RATCHET_RETURN_IF_ERROR(AppendCanonical(item, JoinPath(path, index), out));
        ++index;
      }
      *out += ']';
      return Status::Ok();
    }
    case Json::value_t::object: {
      // nlohmann::json keeps object keys in a std::map: already sorted by bytes.
      *out += '{';
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first) *out += ',';
        first = false;
        RATCHET_RETURN_IF_ERROR(AppendCanonical(Json(it.key()), JoinPath(path, it.key()), out));
        *out += ':';
        RATCHET_RETURN_IF_ERROR(AppendCanonical(it.value(), JoinPath(path, it.key()), out));
      }
      *out += '}';
      return Status::Ok();
    }
    case Json::value_t::binary:
    case Json::value_t::discarded:
      break;
  }
  return Status::BadInput("the value at " + (path.empty() ? std::string("the top") : path) +
                          " has no JSON form");
}

}  // namespace

Result<std::string> CanonicalJson(const Json& value) {
  std::string out;
  Status status = AppendCanonical(value, "", &out);
  if (!status.ok()) return status;
  return out;
}

Result<std::string> CanonicalSha256(const Json& value) {
  Result<std::string> text = CanonicalJson(value);
  if (!text.ok()) return text.status();
  return Sha256Hex(*text);
}

namespace {

// nlohmann::json keeps the last of two equal keys: which value a reader sees would be a choice
// the text does not make. Returns the path of the first key that appears twice in one object
// ("timing.group_slack_ms", "energy.reference_bands[0].prefix"), or "".
std::string FindDuplicateKey(std::string_view text) {
  struct Frame {
    bool array = false;
    size_t index = 0;
    std::string key;
    std::set<std::string> keys;
  };
  std::vector<Frame> stack;
  std::string duplicate;
  auto path = [&stack](size_t depth) {
    std::string out;
    for (size_t i = 0; i < depth; ++i) {
      out = stack[i].array ? JoinPath(out, stack[i].index) : JoinPath(out, stack[i].key);
    }
    return out;
  };
  auto element_done = [&stack]() {
    if (!stack.empty() && stack.back().array) ++stack.back().index;
  };
  Json::parser_callback_t callback = [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start: {
        Frame frame;
        frame.array = event == Json::parse_event_t::array_start;
        stack.push_back(std::move(frame));
        break;
      }
      case Json::parse_event_t::key: {
        Frame& frame = stack.back();
        frame.key = parsed.get<std::string>();
        if (!frame.keys.insert(frame.key).second && duplicate.empty()) {
          duplicate = path(stack.size());
        }
        break;
      }
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        stack.pop_back();
        element_done();
        break;
      case Json::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  };
  try {
    Json discarded = Json::parse(text.begin(), text.end(), callback);
  } catch (const Json::exception&) {
    // ParseJson has already accepted the text; nothing to add.
  }
  return duplicate;
}

}  // namespace

Result<Json> ParseJson(std::string_view text, const std::string& what) {
  // The parser would skip a byte-order mark: two byte strings, one document, and a sha256 of the
  // bytes that no longer names what was read.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    return Status::BadInput(what +
                            " starts with a UTF-8 byte-order mark; save it as UTF-8 without one");
  }
  try {
    Json parsed = Json::parse(text.begin(), text.end());
    const std::string duplicate = FindDuplicateKey(text);
    if (!duplicate.empty()) {
      return Status::BadInput(what + ": field \"" + duplicate + "\" appears twice");
    }
    return parsed;
  } catch (const Json::parse_error& error) {
    return Status::BadInput(what + " is not valid JSON (at byte " + std::to_string(error.byte) +
                            "): " + error.what());
  } catch (const Json::exception& error) {
    // Text that is JSON by its grammar but has no value here, such as a number beyond a double
    // (out_of_range.406): still the input's fault, never an exception that ends the program.
    return Status::BadInput(what + " is not valid JSON: " + error.what());
  }
}

std::string JsonTypeName(const Json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "an array";
  return "an object";
}

std::string JoinPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string JoinPath(const std::string& parent, size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

}  // namespace ratchet
