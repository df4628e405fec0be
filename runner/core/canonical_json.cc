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

// Thrown from the parser's callback at an object's second use of one key.
struct DuplicateKey {
  std::string key;
};

}  // namespace

Result<Json> ParseJson(std::string_view text, const std::string& what) {
  // An object that names one key twice is refused: which value the parser would keep is a
  // choice the text does not make, and a reviewer reading it could see the other one.
  std::vector<std::set<std::string>> keys;
  Json::parser_callback_t callback = [&keys](int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (event == Json::parse_event_t::object_end) {
      keys.pop_back();
    } else if (event == Json::parse_event_t::key && !keys.empty()) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (!keys.back().insert(key).second) throw DuplicateKey{key};
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), callback);
  } catch (const DuplicateKey& duplicate) {
    return Status::BadInput(what + " is not valid here: an object names the key \"" +
                            duplicate.key + "\" twice");
  } catch (const Json::parse_error& error) {
    return Status::BadInput(what + " is not valid JSON (at byte " + std::to_string(error.byte) +
                            "): " + error.what());
  } catch (const Json::exception& error) {
    // Text that is JSON by its grammar but has no value here, such as a number beyond a double
    // (out_of_range.406): still the input's fault, never an exception that ends the program.
    return Status::BadInput(what + " is not valid JSON: " + error.what());
  }
}

std::string JoinPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string JoinPath(const std::string& parent, size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

}  // namespace ratchet
