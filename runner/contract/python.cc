#include "contract/python.h"

#include <cstdio>
#include <cstdlib>

#include "core/subprocess.h"

namespace ratchet {
namespace {

// The interpreter, its version and torch's, and the CUDA version torch was built for (a line
// "None" for a CPU build), without importing torch: they are read from the package's
// torch/version.py, the file `import torch` takes torch.__version__ and torch.version.cuda from.
// Importing torch takes seconds on a machine with CUDA (its libraries load), and nothing of it is
// needed to know the versions. The package must hold its compiled core (_C) built for this
// interpreter, so that a torch folder another Python's packages put on the path (Debian's shared
// dist-packages, a venv with system packages) is not taken for this one's; a torch that is there
// but broken otherwise fails the first worker's start, with its traceback.
constexpr char kProbe[] =
    "import sys, os, importlib.machinery, importlib.util\n"
    "spec = importlib.util.find_spec('torch')\n"
    "if spec is None or not spec.submodule_search_locations:\n"
    "    sys.exit(\"ModuleNotFoundError: No module named 'torch'\")\n"
    "folder = list(spec.submodule_search_locations)[0]\n"
    "if not any(os.path.isfile(os.path.join(folder, '_C' + suffix))\n"
    "           for suffix in importlib.machinery.EXTENSION_SUFFIXES):\n"
    "    sys.exit('ImportError: %s holds no torch._C built for this interpreter' % folder)\n"
    "path = os.path.join(folder, 'version.py')\n"
    "facts = {}\n"
    "with open(path) as f:\n"
    "    exec(compile(f.read(), path, 'exec'), facts)\n"
    "print(sys.executable); print('%d.%d.%d' % sys.version_info[:3]); print(facts['__version__'])\n"
    "print(facts.get('cuda'))\n";

// The search of FindPython: nullopt when it came to PATH and no python3 there has torch, and
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

// Prints "<l2 bytes> <sm count>" of the board whose "GPU-<uuid>" is argv[1] (device 0 when empty).
constexpr char kCudaProbe[] =
    "import sys, torch\n"
    "want = sys.argv[1]\n"
    "for i in range(torch.cuda.device_count()):\n"
    "    p = torch.cuda.get_device_properties(i)\n"
    "    uuid = getattr(p, 'uuid', None)\n"
    "    if want and (uuid is None or 'GPU-%s' % uuid != want):\n"
    "        continue\n"
    "    print(getattr(p, 'L2_cache_size', 0), p.multi_processor_count)\n"
    "    break\n"
    "else:\n"
    "    sys.exit('no CUDA device ' + (want or '0') + ' visible to torch')\n";

}  // namespace

Result<CudaProperties> ProbeCudaProperties(const std::string& python,
                                           const std::optional<std::string>& uuid) {
  Result<ProcessResult> run = RunProcess({python, "-I", "-c", kCudaProbe, uuid.value_or("")}, 120);
  if (!run.ok()) return run.status().Annotate("asking CUDA for the board's L2 and SM count");
  CudaProperties properties;
  if (run->exit_code != 0 ||
      std::sscanf(run->out.c_str(), "%ld %ld", &properties.l2_bytes, &properties.sm_count) != 2 ||
      properties.l2_bytes <= 0 || properties.sm_count <= 0) {
    std::string detail = run->err.size() > 400 ? run->err.substr(run->err.size() - 400) : run->err;
    return Status::Unavailable(python +
                               " could not read the board's L2 size and SM count through "
                               "torch.cuda (exit " +
                               std::to_string(run->exit_code) + "): " + detail);
  }
  return properties;
}

Result<PythonFacts> ProbePython(const std::string& path) {
  // -I: isolated, so that neither the environment nor the folder ratchet runs in (a torch.py
  // there) decides what the probe imports; the workers run isolated too.
  Result<ProcessResult> run = RunProcess({path, "-I", "-c", kProbe}, 120);
  if (!run.ok()) return run.status().Annotate("probing the Python interpreter " + path);
  if (run->exit_code != 0) {
    std::string detail = run->err.size() > 400 ? run->err.substr(run->err.size() - 400) : run->err;
    return Status::BadInput(path + " cannot import torch (exit " + std::to_string(run->exit_code) +
                            "): " + detail);
  }
  PythonFacts facts;
  std::vector<std::string> lines;
  for (size_t at = 0; at < run->out.size();) {
    size_t end = run->out.find('\n', at);
    if (end == std::string::npos) end = run->out.size();
    std::string line = run->out.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    at = end + 1;
  }
  if (lines.size() < 3) return Status::BadInput(path + " answered the probe oddly");
  facts.path = lines[0];
  facts.version = lines[1];
  facts.torch = lines[2];
  if (lines.size() > 3 && !lines[3].empty() && lines[3] != "None") facts.torch_cuda = lines[3];
  return facts;
}

Result<PythonFacts> FindPython(const std::optional<std::string>& flag) {
  std::string tried;
  Result<std::optional<PythonFacts>> found = Search(flag, &tried);
  if (!found.ok()) return found.status();
  if (*found) return **found;
  return Status::Unavailable("no python3 on PATH has torch" +
                             (tried.empty() ? std::string() : " (tried " + tried + ")") +
                             "; name one with --python or $RATCHET_PYTHON (Debian: python3-torch)");
}

Result<std::optional<PythonFacts>> FindPythonIfAny(const std::optional<std::string>& flag) {
  std::string tried;
  return Search(flag, &tried);
}

}  // namespace ratchet
