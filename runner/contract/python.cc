#include "contract/python.h"

#include <cstdlib>

#include "core/subprocess.h"

namespace ratchet {
namespace {

constexpr char kProbe[] =
    "import sys, torch; print(sys.executable); "
    "print('%d.%d.%d' % sys.version_info[:3]); print(torch.__version__)";

// The search of FindPython: nullopt when it came to PATH and no python3 there imports torch, and
// then `tried` lists the ones that did not.
Result<std::optional<PythonFacts>> Search(const std::optional<std::string>& flag,
                                          std::string* tried) {
  if (flag) {
    Result<PythonFacts> facts = ProbePython(*flag);
    if (!facts.ok()) return facts.status();
    return std::optional<PythonFacts>(*facts);
  }
  if (const char* variable = std::getenv("RATCHET_PYTHON"); variable && *variable) {
    Result<PythonFacts> facts = ProbePython(variable);
    if (!facts.ok()) return facts.status().Annotate("$RATCHET_PYTHON");
    return std::optional<PythonFacts>(*facts);
  }
  for (const std::string& candidate : FindAllOnPath("python3")) {
    Result<PythonFacts> facts = ProbePython(candidate);
    if (facts.ok()) return std::optional<PythonFacts>(*facts);
    *tried += (tried->empty() ? "" : ", ") + candidate;
  }
  return std::optional<PythonFacts>();
}

}  // namespace

Result<PythonFacts> ProbePython(const std::string& path) {
  Result<ProcessResult> run = RunProcess({path, "-E", "-s", "-c", kProbe}, 120);
  if (!run.ok()) return run.status().Annotate("probing the Python interpreter " + path);
  if (run->exit_code != 0) {
    std::string detail = run->err.size() > 400 ? run->err.substr(run->err.size() - 400) : run->err;
    return Status::BadInput(path + " cannot import torch (exit " + std::to_string(run->exit_code) +
                            "): " + detail);
  }
  PythonFacts facts;
  size_t first = run->out.find('\n');
  size_t second = first == std::string::npos ? first : run->out.find('\n', first + 1);
  if (second == std::string::npos) return Status::BadInput(path + " answered the probe oddly");
  facts.path = run->out.substr(0, first);
  facts.version = run->out.substr(first + 1, second - first - 1);
  facts.torch = run->out.substr(second + 1);
  while (!facts.torch.empty() && (facts.torch.back() == '\n' || facts.torch.back() == '\r')) {
    facts.torch.pop_back();
  }
  return facts;
}

Result<PythonFacts> FindPython(const std::optional<std::string>& flag) {
  std::string tried;
  Result<std::optional<PythonFacts>> found = Search(flag, &tried);
  if (!found.ok()) return found.status();
  if (*found) return **found;
  return Status::Unavailable("no python3 on PATH imports torch" +
                             (tried.empty() ? std::string() : " (tried " + tried + ")") +
                             "; name one with --python or $RATCHET_PYTHON (Debian: python3-torch)");
}

Result<std::optional<PythonFacts>> FindPythonIfAny(const std::optional<std::string>& flag) {
  std::string tried;
  return Search(flag, &tried);
}

}  // namespace ratchet
