#include "scorer/prepare.h"

#include <sys/stat.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "contract/workers.h"
#include "core/file.h"
#include "core/sha256.h"
#include "evidence/layout.h"
#include "rules/pyformat.h"
#include "rules/rule_ids.h"
#include "sandbox/view.h"
#include "scorer/sandboxed_command.h"
#include "scorer/worker_process.h"

namespace ratchet {
namespace {

CallFailure SourceFailure(std::string message) {
  return CallFailure{kRuleSource, std::move(message)};
}

// The source file a compile reads, under a fixed name beside the library it writes.
constexpr char kNativeSourceFile[] = "submission/method.cpp";

// A compile's limits and the source checker's (the rule set's sandbox block): an honest method
// compiles in seconds to well under a megabyte; a source that includes /dev/zero, expands a macro
// bomb or fills a huge array is stopped by one of them.
void LimitPreparation(const RuleSet::Sandbox& limits, SandboxedCommand* command) {
  command->timeout_s = static_cast<double>(limits.compile_s);
  command->folder_bytes = static_cast<uint64_t>(limits.folder_bytes);
  command->group.memory_bytes = static_cast<uint64_t>(limits.compile_memory_bytes);
  command->group.processes = static_cast<uint64_t>(limits.processes);
}

// Whether the compiler's driver (or its linker wrapper) says a program it ran was killed at the
// largest file size: the driver removes the temporary file that was cut short, so the folder shows
// nothing. Only the driver's own lines count ("c++: ...", "collect2: ..."): a diagnostic of the
// source begins with the source's name, so a file cannot forge one.
bool DriverSaysFileSizeExceeded(const std::string& output, const std::string& driver) {
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const std::string line = output.substr(start, end - start);
    start = end + 1;
    const bool drivers = line.rfind(driver + ": ", 0) == 0 || line.rfind("collect2: ", 0) == 0;
    if (drivers && line.find("File size limit exceeded") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

std::string CompilerMessagesOfSubmission(const std::string& output, const std::string& source,
                                         const std::string& name) {
  std::string kept;
  size_t left_out = 0;
  bool keeping = true;  // whether the lines quoted under the last diagnostic are kept
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    std::string line = output.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line[0] != ' ') {
      // "FILE:LINE:..." names where a diagnostic is; only the submission's are quoted.
      size_t colon = line.find(':');
      const bool located = colon != std::string::npos && colon + 1 < line.size() &&
                           std::isdigit(static_cast<unsigned char>(line[colon + 1]));
      keeping = !located || line.compare(0, colon, source) == 0;
      if (!keeping) ++left_out;
    }
    if (!keeping) continue;
    for (size_t at; (at = line.find(source)) != std::string::npos;)
      line.replace(at, source.size(), name);
    kept += line + "\n";
  }
  if (left_out > 0) {
    kept += "(" + std::to_string(left_out) + " diagnostic" + (left_out == 1 ? "" : "s") +
            " located in files other than " + name + " left out)\n";
  }
  return kept;
}

namespace {

// The folders a compile needs beside the view's base: the compiler's own prefix and every
// folder its flags and libraries name (on a GPU machine, libtorch inside a Python package).
std::vector<std::string> ToolchainFolders(const Json& toolchain) {
  std::vector<std::string> folders;
  auto add = [&](const std::string& folder) {
    if (!folder.empty() && folder[0] == '/') folders.push_back(folder);
  };
  for (const std::string& folder : InterpreterFolders(toolchain["cxx"].get<std::string>())) {
    add(folder);
  }
  bool next_is_folder = false;
  for (const Json& flag : toolchain["flags"]) {
    if (!flag.is_string()) continue;
    const std::string text = flag.get<std::string>();
    if (next_is_folder) {
      add(text);
      next_is_folder = false;
      continue;
    }
    for (const char* option : {"-isystem", "-I", "-L"}) {
      if (text == option)
        next_is_folder = true;
      else if (text.rfind(option, 0) == 0)
        add(text.substr(std::strlen(option)));
    }
  }
  for (const Json& lib : toolchain["libs"]) {
    if (lib.is_string() && !lib.get<std::string>().empty() && lib.get<std::string>()[0] == '/') {
      add(DirName(lib.get<std::string>()));
    }
  }
  return folders;
}

std::string CacheFolder() {
  if (const char* cache = std::getenv("RATCHET_CACHE"); cache && *cache) return cache;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/ratchet";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/ratchet";
  return "";
}

// Creates the folders of `path` (0700) and checks the last one: a real folder of this user that
// nobody else may write, since the shared objects in it are loaded into workers unchecked.
Status MakePrivateFolders(const std::string& path) {
  std::string built;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    built = path.substr(0, end);
    if (!built.empty() && mkdir(built.c_str(), 0700) != 0 && errno != EEXIST) {
      return Status::IOError("mkdir " + built, errno);
    }
    start = end + 1;
  }
  struct stat info;
  if (lstat(path.c_str(), &info) != 0) return Status::IOError("lstat " + path, errno);
  if (!S_ISDIR(info.st_mode) || info.st_uid != geteuid() || (info.st_mode & 022) != 0) {
    return Status::BadInput("the native build cache " + path + " must be a folder of this user " +
                            "that no one else can write; fix it or set $RATCHET_CACHE");
  }
  return Status::Ok();
}

Status CheckPython(const std::string& python, const RuleSet& rules,
                   const std::vector<std::string>& covered, Prepared* prepared) {
  Result<std::string> checker = PythonWorkerFile("check_source.py");
  if (!checker.ok()) return checker.status();
  SandboxedCommand command;
  // -I: the folder holding the method file is not on sys.path (a json.py there would be
  // imported by the checker itself).
  command.argv = {python,
                  "-I",
                  std::string(kWorkerFolderToken) + "/check_source.py",
                  "--max-bytes",
                  std::to_string(rules.limits.max_source_bytes),
                  "--review-flags",
                  rules.document["review_flags"].dump(),
                  std::string(kWorkerFolderToken) + "/" + kPythonSubmissionFile,
                  prepared->submission.function};
  command.copies = {*checker};
  // A fixed name in a folder of its own: a method file named check_source.py replaces nothing.
  command.files = {{kPythonSubmissionFile, prepared->submission.source}};
  command.covered = covered;
  command.view_folders = InterpreterFolders(python);
  command.path_first = DirName(python);
  LimitPreparation(rules.sandbox, &command);
  Result<SandboxedResult> run = RunSandboxed(command);
  if (!run.ok()) return run.status();
  // The checker reads the file and nothing else: one that makes it run out of memory or time is
  // refused by the source rules like any other it cannot check.
  if (run->memory_hit || run->timed_out) {
    prepared->failure = SourceFailure(
        "the source checker " +
        (run->memory_hit
             ? "went past its memory limit of " + FormatBytes(rules.sandbox.compile_memory_bytes) +
                   " (sandbox.compile_memory_bytes)"
             : "ran out of time (" + std::to_string(rules.sandbox.compile_s) +
                   " s, sandbox.compile_s)") +
        " on " + BaseName(prepared->submission.path));
    return Status::Ok();
  }
  // The checker prints one JSON object on its last line; anything else is the harness's problem.
  std::string last = run->output;
  while (!last.empty() && last.back() == '\n') last.pop_back();
  size_t newline = last.rfind('\n');
  if (newline != std::string::npos) last = last.substr(newline + 1);
  Result<Json> verdict = ParseJson(last, "the source checker's answer");
  if (run->exit_code != 0 || !verdict.ok() || !verdict->is_object()) {
    return Status::Unavailable("the source checker failed (exit " + std::to_string(run->exit_code) +
                               "):\n" + run->output);
  }
  if (verdict->value("function", Json()).is_string()) {
    // The checker names the file's one function when none was given; its word is checked too.
    const std::string function = (*verdict)["function"].get<std::string>();
    Status name = function.empty() ? Status::Ok() : CheckFunctionName(function);
    if (!name.ok()) {
      prepared->failure = SourceFailure(name.message() + " (rename it)");
      return Status::Ok();
    }
    prepared->submission.function = function;
  }
  for (const Json& flag : verdict->value("flags", Json::array())) {
    if (flag.is_string()) prepared->review_flags.push_back(flag.get<std::string>());
  }
  if (!verdict->value("ok", false)) {
    prepared->failure = SourceFailure(
        (*verdict).value("error", Json("the source rules refused it")).get<std::string>());
  }
  return Status::Ok();
}

Status BuildNative(const std::string& path, const std::string& source, const RuleSet& rules,
                   const std::vector<std::string>& covered, Prepared* prepared) {
  Result<Json> toolchain = NativeToolchain();
  if (!toolchain.ok()) return toolchain.status();
  Result<std::string> toolchain_text = CanonicalJson(*toolchain);
  if (!toolchain_text.ok()) return toolchain_text.status();
  // The limits are part of the key: a library built under larger ones is not one under these.
  const RuleSet::Sandbox& limits = rules.sandbox;
  const std::string key = Sha256Hex(
      Sha256Hex(source) + "\n" + *toolchain_text + "\n" + std::to_string(limits.compile_s) + " " +
      std::to_string(limits.compile_memory_bytes) + " " +
      std::to_string(limits.compile_output_bytes) + " " + std::to_string(limits.processes) + " " +
      std::to_string(limits.folder_bytes));
  if (CacheFolder().empty()) {
    return Status::Unavailable("no folder for the native build cache: set $RATCHET_CACHE or $HOME");
  }
  const std::string folder = CacheFolder() + "/native";
  RATCHET_RETURN_IF_ERROR(MakePrivateFolders(folder));
  const std::string library = folder + "/" + key + ".so";
  prepared->submission.library = library;
  if (PathExists(library)) return Status::Ok();

  SandboxedCommand command;
  command.argv = {(*toolchain)["cxx"].get<std::string>()};
  for (const Json& flag : (*toolchain)["flags"]) command.argv.push_back(flag.get<std::string>());
  command.argv.push_back(std::string("-I") + kWorkerFolderToken + "/include");
  command.argv.push_back(std::string(kWorkerFolderToken) + "/" + kNativeSourceFile);
  command.argv.push_back("-o");
  command.argv.push_back(std::string(kWorkerFolderToken) + "/" + kNativeSubmissionFile);
  for (const Json& lib : (*toolchain)["libs"]) command.argv.push_back(lib.get<std::string>());
  // The header travels with the job: the checkout it lives in may be out of the sandbox user's
  // reach.
  if (!(*toolchain)["method_header"].is_string()) {
    return Status::Unavailable(NativeToolchainPath() + " does not name method_header: rebuild");
  }
  Result<std::string> header = ReadFile((*toolchain)["method_header"].get<std::string>(), 1 << 20);
  if (!header.ok()) return header.status();
  command.files = {{kNativeSourceFile, source}, {"include/ratchet/method.h", *header}};
  command.covered = covered;
  command.view_folders = ToolchainFolders(*toolchain);
  LimitPreparation(limits, &command);
  command.file_size_bytes = static_cast<uint64_t>(limits.compile_output_bytes);
  command.output_bytes = 8000;
  command.outputs = {{kNativeSubmissionFile, library}};
  Result<SandboxedResult> run = RunSandboxed(command);
  if (!run.ok()) return run.status();
  const std::string messages =
      CompilerMessagesOfSubmission(run->output, kNativeSourceFile, BaseName(path));
  // A limit the compile went past names the rule, whatever else failed with it.
  if (run->memory_hit) {
    prepared->failure = CallFailure{kRuleCompileMemory,
                                    BaseName(path) + " went past the compile's memory limit of " +
                                        FormatBytes(limits.compile_memory_bytes) +
                                        " (sandbox.compile_memory_bytes):\n" + messages};
  } else if (run->timed_out) {
    prepared->failure =
        CallFailure{kRuleCompileTime, BaseName(path) + " took the compile past its " +
                                          std::to_string(limits.compile_s) +
                                          " s (sandbox.compile_s):\n" + messages};
  } else if (run->file_size_hit ||
             DriverSaysFileSizeExceeded(run->output, BaseName(command.argv[0]))) {
    prepared->failure =
        CallFailure{kRuleCompileOutput,
                    BaseName(path) + " made the compile write a file of " +
                        FormatBytes(limits.compile_output_bytes) +
                        " (sandbox.compile_output_bytes, the largest allowed):\n" + messages};
  } else if (run->processes_hit) {
    prepared->failure =
        CallFailure{kRuleProcesses, BaseName(path) + " made the compile reach its limit of " +
                                        std::to_string(limits.processes) +
                                        " processes and threads (sandbox.processes):\n" + messages};
  } else if (run->exit_code != 0) {
    prepared->failure = SourceFailure(BaseName(path) + " does not compile:\n" + messages);
  }
  return Status::Ok();
}

}  // namespace

Result<Prepared> PrepareSubmission(const std::string& spec, const RuleSet& rules,
                                   const std::string& python,
                                   const std::vector<std::string>& covered) {
  Prepared prepared;
  std::string path = spec, function;
  size_t colon = spec.rfind(':');
  if (colon != std::string::npos &&
      (EndsWith(spec.substr(0, colon), ".py") || EndsWith(spec.substr(0, colon), ".cpp"))) {
    path = spec.substr(0, colon);
    function = spec.substr(colon + 1);
  }
  struct stat info;
  if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    return Status::BadInput("no method file at " + path);
  }
  const bool native = EndsWith(path, ".cpp");
  if (!native && !EndsWith(path, ".py")) {
    return Status::BadInput(path +
                            " is neither a Python method file (.py) nor a native one (.cpp)");
  }
  if (native && !function.empty() && function != "method") {
    return Status::BadInput("a native submission always defines method(); " + spec + " names " +
                            function);
  }
  // Bounded, so that a device file named by mistake cannot exhaust memory.
  Result<std::string> whole = ReadFile(path, 64 << 20);
  if (!whole.ok()) return whole.status();
  prepared.submission.path = path;
  prepared.submission.source = *whole;
  prepared.submission.native = native;
  prepared.submission.function = native ? "method" : function;
  prepared.source_sha256 = Sha256Hex(*whole);
  const std::string name = BaseName(path);
  if (whole->size() > static_cast<size_t>(rules.limits.max_source_bytes)) {
    prepared.failure =
        SourceFailure(name + " is " + FormatGrouped(static_cast<int64_t>(whole->size())) +
                      " bytes; the limit is " + FormatGrouped(rules.limits.max_source_bytes) +
                      ", so a method cannot carry a trained model or the dataset with it");
    return prepared;
  }
  Status status = native ? BuildNative(path, *whole, rules, covered, &prepared)
                         : CheckPython(python, rules, covered, &prepared);
  if (!status.ok()) return status;
  return prepared;
}

}  // namespace ratchet
