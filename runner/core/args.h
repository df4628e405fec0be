// A small, strict command-line parser: --name VALUE, --name=VALUE, boolean --name, and
// positional arguments. An option the command does not know, a missing value or a repeated
// option is a usage error that names it.
#ifndef RATCHET_CORE_ARGS_H_
#define RATCHET_CORE_ARGS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace ratchet {

struct OptionSpec {
  std::string name;  // without the leading "--"
  bool takes_value;
  bool repeatable = false;
};

class Args {
 public:
  static Result<Args> Parse(const std::vector<std::string>& argv,
                            const std::vector<OptionSpec>& specs);

  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  std::optional<std::string> Get(const std::string& name) const;
  std::vector<std::string> GetAll(const std::string& name) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
};

// A whole number from `low` to `high`, or a usage error naming --flag.
Result<int64_t> ParseCount(const std::string& flag, const std::string& text, int64_t low,
                           int64_t high);

}  // namespace ratchet

#endif  // RATCHET_CORE_ARGS_H_
