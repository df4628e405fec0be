// The Python interpreter for Python submissions, found as a user expects: --python, then
// $RATCHET_PYTHON, then the first python3 on PATH that has torch. Its versions go into the
// lane (docs/contract.md), since a different interpreter or torch can move a time.
#ifndef RATCHET_CONTRACT_PYTHON_H_
#define RATCHET_CONTRACT_PYTHON_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace ratchet {

// What CUDA itself says of a board that NVML cannot: its L2 cache and its streaming
// multiprocessors, read through the interpreter's torch in a child process (ratchet never loads
// CUDA).
struct CudaProperties {
  int64_t l2_bytes = 0;
  int64_t sm_count = 0;
};

struct PythonFacts {
  std::string path;     // absolute: the interpreter's sys.executable
  std::string version;  // "3.11.2"
  std::string torch;    // torch.__version__, as torch/version.py gives it
  // torch.version.cuda ("13.0"): the CUDA torch was built for; empty for a CPU build. Never a
  // lane fact by itself (python_torch names the build).
  std::string torch_cuda;
};

// Probes one interpreter: it must run and find the torch package, whose version it reads
// without importing it (a fraction of a second, where the import takes seconds).
Result<PythonFacts> ProbePython(const std::string& path);

// The board whose UUID is `uuid` ("GPU-..."), or device 0 without one; a torch that cannot
// tell the board's UUID or L2 size, or sees no such board, is Unavailable.
Result<CudaProperties> ProbeCudaProperties(const std::string& python,
                                           const std::optional<std::string>& uuid);

// --python (flag), then $RATCHET_PYTHON, then PATH. An interpreter named by the flag or the
// variable that has no torch is an error (exit 2); none on PATH is Unavailable (exit 3).
Result<PythonFacts> FindPython(const std::optional<std::string>& flag);

// As FindPython, but no python3 on PATH that has torch is nullopt, not an error: the
// contract of a machine without one is still a contract. A named interpreter is still checked.
Result<std::optional<PythonFacts>> FindPythonIfAny(const std::optional<std::string>& flag);

}  // namespace ratchet

#endif  // RATCHET_CONTRACT_PYTHON_H_
