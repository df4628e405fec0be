// The facts of this machine that a contract records: the running binary and the native worker,
// the toolchains they were built with, the Python interpreter, the libraries the process loaded,
// the device, the processor and the sandbox mode. Each is read by one small function, so the
// contract builder (contract.h) takes plain values and a test can hand it any machine.
#ifndef RATCHET_CONTRACT_FACTS_H_
#define RATCHET_CONTRACT_FACTS_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "contract/python.h"
#include "core/status.h"

namespace ratchet {

struct LoadedLibrary {
  std::string name;    // the last part of the loader's path: "libcrypto.so.3"
  std::string path;    // the path the loader reported
  std::string sha256;  // of the bytes of that file (symlinks followed)
};

// The accelerator a run's timings come from, as the driver reports it (nvml.h).
struct DeviceFacts {
  std::string kind = "cpu";                // "cpu", or "cuda" when an NVIDIA driver answers
  std::optional<std::string> name;         // "NVIDIA H200"
  std::optional<std::string> driver;       // the driver's version: "550.90.07"
  std::optional<std::string> cuda_driver;  // the CUDA version the driver provides: "12.4"
  std::optional<std::string> vbios;
  std::optional<unsigned> power_limit_mw;  // the power management limit, milliwatts
  // What NVML does not say, asked of CUDA through the interpreter's torch (python.h): the L2
  // cache, which sizes the flush before every call, and the streaming multiprocessors.
  std::optional<int64_t> l2_bytes;
  std::optional<int64_t> sm_count;
  // The board's identity: evidence of which board ran, never part of a lane, which many boards
  // of one model share.
  std::optional<std::string> uuid;
  // Why the device is a CPU: no driver library, or one that gave no device. Empty on CUDA.
  std::string note;
};

struct MachineFacts {
  std::string binary_sha256;  // the running executable's bytes: ratchet-scorer's
  // build/ratchet-worker's bytes (workers.h: NativeWorkerPath); nullopt when it is not built.
  std::optional<std::string> worker_binary_sha256;
  std::string cxx;  // the compiler that built it: "g++ 12.2.0"
  // The libtorch the native worker was built with ("libtorch" of the native toolchain
  // description, workers.h); nullopt when there is no description or it names none.
  std::optional<std::string> libtorch;
  // The interpreter of Python submissions (python.h); nullopt when none is known. Its versions
  // are lane facts, its path is only recorded.
  std::optional<PythonFacts> python;
  std::string glibc;                             // "2.36"
  std::map<std::string, std::string> libraries;  // name -> sha256
  DeviceFacts device;
  std::string processor;  // the CPU model; recorded, never part of the lane
  // Whether workers here get the full sandbox or the partial one, and why not the full one
  // (DescribeSandbox()); recorded, never part of the lane: a partial sandbox's times are not
  // official, whatever their lane.
  bool sandbox_full = false;
  int sandbox_slot = 0;  // the slot whose worker uids the workers take (the full sandbox only)
  std::string sandbox_partial_reason;
};

// sha256 of /proc/self/exe: the file that actually runs, even if its path was replaced since.
Result<std::string> RunningBinarySha256();
// The compiler of this translation unit, from its predefined macros: "g++ 12.2.0".
std::string CompilerVersion();
// gnu_get_libc_version(): the C library actually loaded, not the one built against.
std::string GlibcVersion();
// Every shared object loaded in this process (dl_iterate_phdr), in load order, except the main
// program and the vdso, which have no file. The errors name the file that could not be read.
Result<std::vector<LoadedLibrary>> LoadedLibraries();
// The first "model name" of /proc/cpuinfo text (or "Hardware", "cpu model" where a
// processor has none); "unknown" when there is no such line.
std::string ParseProcessorModel(std::string_view cpuinfo);
std::string ProcessorModel();

// sha256 of the file at `found`, or nullopt when `found` is Unavailable (the file is not on this
// machine); another error, or a file that cannot be read, is an error.
Result<std::optional<std::string>> Sha256IfPresent(const Result<std::string>& found);
// The "libtorch" of the native toolchain description (workers.h), or nullopt when there is no
// description or it names none. A description that is there but unreadable or malformed is an
// error (Unavailable: the build is broken).
Result<std::optional<std::string>> NativeLibtorchVersion();

// All of the above but the Python interpreter, which its caller knows (python.h). The libraries
// are read before the driver is opened, so the lane holds the libraries of ratchet itself; the
// driver's own library is named by the driver version. `device_uuid`: the board a worker runs
// on (nvml.h), or nullopt for device 0.
Result<MachineFacts> GatherMachineFacts(const std::optional<std::string>& device_uuid);

}  // namespace ratchet

#endif  // RATCHET_CONTRACT_FACTS_H_
