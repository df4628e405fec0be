#include "cli/score_args.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "cli/tool_sha256.h"
#include "core/file.h"
#include "core/version.h"

namespace ratchet {

SessionOptions SessionOptionsFromArgs(const Args& args, const char* command) {
  SessionOptions options;
  options.command = command;
  options.data_dir = args.Get("data");
  options.python = args.Get("python");
  options.rules_path = args.Get("rules");
  options.out = args.Get("out");
  options.out_prefix = command;
  options.energy = !args.Has("no-energy");
  options.tool_version = kRatchetVersion;
  options.tool_source_sha256 = ToolSourceSha256();
  return options;
}

std::string RecordIdOf(const std::string& path) {
  std::string stem = BaseName(path);
  size_t dot = stem.rfind('.');
  if (dot != std::string::npos && dot > 0) stem = stem.substr(0, dot);
  std::string id;
  for (char c : stem) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.';
    id += plain ? c : '_';
  }
  return id.empty() || id[0] == '.' ? "submission" + id : id;
}

Status CheckRecordCrosses(const RecordSpec& record) {
  Result<std::string> line = EncodeRequest("score", RecordSpecToJson(record));
  return line.ok() ? Status::Ok() : line.status();
}

bool IsNativeSpec(const std::string& spec) {
  return spec.size() > 4 &&
         (spec.rfind(".cpp") == spec.size() - 4 || spec.find(".cpp:") != std::string::npos);
}

std::string SpecFile(const std::string& spec) {
  for (const char* suffix : {".py:", ".cpp:"}) {
    size_t at = spec.rfind(suffix);
    if (at != std::string::npos) return spec.substr(0, at + std::strlen(suffix) - 1);
  }
  return spec;
}

}  // namespace ratchet
