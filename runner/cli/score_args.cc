#include "cli/score_args.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "baseline/input_file.h"
#include "cli/tool_sha256.h"
#include "core/file.h"
#include "core/version.h"
#include "evidence/layout.h"
#include "evidence/signature.h"

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

Result<std::optional<std::string>> SigningKeyFromArgs(const Args& args) {
  std::string path;
  std::string named;
  if (args.Has("sign")) {
    path = *args.Get("sign");
    named = "--sign " + path;
  } else if (const char* env = std::getenv("RATCHET_SIGNING_KEY"); env != nullptr && *env) {
    path = env;
    named = "$RATCHET_SIGNING_KEY (" + path + ")";
  } else {
    return std::optional<std::string>();
  }
  struct stat info;
  if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    return Status::BadInput(named + ": no key file there (make one with `ratchet key new --out "
                                    "FILE`)");
  }
  if ((info.st_mode & 077) != 0) {
    return Status::BadInput(named + ": the private key can be read by others than its owner; "
                                    "`chmod 600 " + path + "`, and make a new key if others did");
  }
  Result<std::string> pem = ReadInputFile(path, "the signing key", 1 << 16);
  if (!pem.ok()) return Status::BadInput(pem.status().message());
  Result<std::string> public_key = PublicKeyOf(*pem, named);
  if (!public_key.ok()) return public_key.status();
  return std::optional<std::string>(*pem);
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

Status CheckSubmissionNames(const std::string& spec) {
  const auto shown = [](const std::string& name) {
    return Json(name).dump(-1, ' ', true, Json::error_handler_t::replace);
  };
  const std::string file = SpecFile(spec);
  const std::string name = BaseName(file);
  if (name.find('/') != std::string::npos || !CheckEvidencePath(name).ok()) {
    return Status::BadInput("the method file's name " + shown(name) +
                            " is not a plain name: a submission's file is named with A-Z a-z 0-9 "
                            ". _ + @ = - only, not starting with '.' (rename it)");
  }
  if (spec.size() == file.size()) return Status::Ok();
  const std::string function = spec.substr(file.size() + 1);
  if (function.empty()) return Status::Ok();  // "FILE.py:": the file's one top-level function
  if (!CheckFunctionName(function).ok()) {
    return Status::BadInput("the function name " + shown(function) + " of " + shown(name) +
                            " is not an identifier: a function is named with A-Z a-z 0-9 _ only, "
                            "not starting with a digit (or leave it out, and the file's one "
                            "top-level function is taken)");
  }
  return Status::Ok();
}

Status CheckRecordCrosses(const RecordSpec& record) {
  RATCHET_RETURN_IF_ERROR(CheckSubmissionNames(record.spec));
  Result<std::string> line = EncodeRequest("score", RecordSpecToJson(record));
  return line.ok() ? Status::Ok() : line.status();
}

bool IsNativeSpec(const std::string& spec) {
  return spec.size() > 4 &&
         (spec.rfind(".cpp") == spec.size() - 4 || spec.find(".cpp:") != std::string::npos);
}

}  // namespace ratchet
