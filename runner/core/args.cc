#include "core/args.h"

#include <cerrno>
#include <cstdlib>

namespace ratchet {

Result<Args> Args::Parse(const std::vector<std::string>& argv,
                         const std::vector<OptionSpec>& specs) {
  Args args;
  bool options_done = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& word = argv[i];
    if (options_done || word.size() < 3 || word.compare(0, 2, "--") != 0) {
      if (word == "--") {
        options_done = true;
        continue;
      }
      if (!options_done && word.size() > 1 && word[0] == '-') {
        return Status::Usage("unknown option " + word);
      }
      args.positional_.push_back(word);
      continue;
    }
    std::string name = word.substr(2);
    std::optional<std::string> inline_value;
    size_t equals = name.find('=');
    if (equals != std::string::npos) {
      inline_value = name.substr(equals + 1);
      name = name.substr(0, equals);
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& candidate : specs) {
      if (candidate.name == name) spec = &candidate;
    }
    if (spec == nullptr) return Status::Usage("unknown option --" + name);
    if (args.values_.count(name) && !spec->repeatable) {
      return Status::Usage("--" + name + " given twice");
    }
    if (!spec->takes_value) {
      if (inline_value) return Status::Usage("--" + name + " takes no value");
      args.values_[name].push_back("");
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argv.size()) return Status::Usage("--" + name + " needs a value");
      inline_value = argv[++i];
    }
    args.values_[name].push_back(*inline_value);
  }
  return args;
}

std::optional<std::string> Args::Get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> Args::GetAll(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

Result<int64_t> ParseCount(const std::string& flag, const std::string& text, int64_t low,
                           int64_t high) {
  char* end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < low || value > high) {
    return Status::Usage("--" + flag + " must be a whole number from " + std::to_string(low) +
                         " to " + std::to_string(high) + ", not '" + text + "'");
  }
  return static_cast<int64_t>(value);
}

}  // namespace ratchet
