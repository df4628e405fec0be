// A short untrusted job under the sandbox: the source checker on a Python submission, the
// compiler on a native one. It gets its own folder with copies of its inputs, its output is
// captured (capped), it is killed at its deadline, and the folder and everything the sandbox
// user left are removed afterwards; files it should produce are copied out first.
#ifndef RATCHET_SCORER_SANDBOXED_COMMAND_H_
#define RATCHET_SCORER_SANDBOXED_COMMAND_H_

#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "sandbox/cgroup.h"
#include "sandbox/policy.h"
#include "scorer/worker_process.h"

namespace ratchet {

struct SandboxedCommand {
  std::vector<std::string> argv;     // kWorkerFolderToken stands for the job's folder
  std::vector<std::string> copies;   // files copied into the folder
  std::vector<FolderFile> files;     // files given by their bytes
  std::vector<std::string> covered;  // folders hidden from the job
  std::vector<std::string> view_folders;  // read-only folders it needs beyond the view's base
  std::string path_first;                 // a folder put first on its PATH
  std::vector<std::string> extra_env;
  // The largest file the job may write (its output among them); larger is refused by the kernel.
  uint64_t file_size_bytes = kDefaultFileSizeBytes;
  // Under the full sandbox: its folder's size, and the memory and processes of its control group
  // (everything the job starts).
  uint64_t folder_bytes = uint64_t{2} << 30;
  GroupLimits group = {uint64_t{4} << 30, kDefaultProcesses};
  double timeout_s = 60;
  size_t output_bytes = 1 << 20;  // stdout and stderr together, the tail kept
  // Files the job writes into its folder, copied out (folder-relative name -> destination path)
  // when it exits 0.
  std::map<std::string, std::string> outputs;
};

struct SandboxedResult {
  int exit_code = -1;  // or 128 + signal
  bool timed_out = false;
  std::string output;  // stdout and stderr, interleaved, the tail kept
  // The limits it went past (full sandbox): the kernel killed a process of it at the memory
  // limit; a fork or thread was refused at the process limit; a file in its folder reached
  // file_size_bytes (the kernel stopped the write there).
  bool memory_hit = false;
  bool processes_hit = false;
  bool file_size_hit = false;
};

Result<SandboxedResult> RunSandboxed(const SandboxedCommand& command);

}  // namespace ratchet

#endif  // RATCHET_SCORER_SANDBOXED_COMMAND_H_
