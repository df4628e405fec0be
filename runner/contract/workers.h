// The worker programs a run starts, where the scorer finds them: build/ratchet-worker beside the
// ratchet binary, with the description of the toolchain native submissions are compiled with, and
// the Python files in the checkout's runner/worker/. The contract hashes the same files the scorer
// runs, so both find them here.
#ifndef RATCHET_CONTRACT_WORKERS_H_
#define RATCHET_CONTRACT_WORKERS_H_

#include <string>

#include "core/canonical_json.h"
#include "core/status.h"

namespace ratchet {

// The Python files a run executes, by the names the contract locks them under.
inline constexpr const char* kPythonWorkerFiles[] = {"worker.py", "check_source.py"};

// <folder of the ratchet binary>/ratchet-worker; Unavailable when it is not there (or not
// executable).
Result<std::string> NativeWorkerPath();

// $RATCHET_WORKER_DIR/NAME, else <folder of the ratchet binary>/../runner/worker/NAME (the
// checkout, for a binary in build/); Unavailable when there is no such file.
Result<std::string> PythonWorkerFile(const std::string& name);  // "worker.py", "check_source.py"

// <folder of the ratchet binary>/ratchet-worker.native.json, which the worker's build writes.
std::string NativeToolchainPath();

// The toolchain a native submission is compiled with, read from NativeToolchainPath(): the
// compiler ("cxx"), its "flags" and "libs", and the "libtorch" version the worker was built with.
// Unavailable when the file is absent or lacks cxx, flags or libs.
Result<Json> NativeToolchain();

}  // namespace ratchet

#endif  // RATCHET_CONTRACT_WORKERS_H_
