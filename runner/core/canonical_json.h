// Canonical JSON: one byte string per value, so that equal objects hash equally.
// Keys sorted by their UTF-8 bytes, no whitespace, integers in decimal, a float that holds an
// integer of magnitude below 2^53 written as that integer, any other float in its shortest
// round-trip form (std::to_chars), NaN and infinities refused. docs/canonical-json.md pins it.
#ifndef RATCHET_CORE_CANONICAL_JSON_H_
#define RATCHET_CORE_CANONICAL_JSON_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/status.h"

namespace ratchet {

using Json = nlohmann::json;

Result<std::string> CanonicalJson(const Json& value);
// sha256 of CanonicalJson(value), hex.
Result<std::string> CanonicalSha256(const Json& value);

// Parses `text`; an error names `what` (a file path, usually) and the byte where parsing stopped.
// A leading UTF-8 byte-order mark is refused, not skipped.
Result<Json> ParseJson(std::string_view text, const std::string& what);

// "a.b[3].c"-style paths for error messages about a field.
// "a string", "an integer", ...: the JSON type of `value`, for messages.
std::string JsonTypeName(const Json& value);

std::string JoinPath(const std::string& parent, const std::string& key);
std::string JoinPath(const std::string& parent, size_t index);

}  // namespace ratchet

#endif  // RATCHET_CORE_CANONICAL_JSON_H_
