#include "worker/proc_status.h"

#include <charconv>

namespace ratchet {

std::optional<int64_t> ProcStatusField(std::string_view status_text, std::string_view name) {
  size_t start = 0;
  while (start < status_text.size()) {
    size_t end = status_text.find('\n', start);
    if (end == std::string_view::npos) end = status_text.size();
    std::string_view line = status_text.substr(start, end - start);
    start = end + 1;
    if (line.size() <= name.size() || line.substr(0, name.size()) != name ||
        line[name.size()] != ':') {
      continue;
    }
    std::string_view value = line.substr(name.size() + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
      value.remove_prefix(1);
    }
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    int64_t number = 0;
    auto [end_of_number, error] =
        std::from_chars(value.data(), value.data() + value.size(), number);
    if (error != std::errc() || end_of_number != value.data() + value.size()) return std::nullopt;
    return number;
  }
  return std::nullopt;
}

}  // namespace ratchet
