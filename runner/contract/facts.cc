#include "contract/facts.h"

#include <gnu/libc-version.h>
#include <link.h>
#include <stdlib.h>

#include <cerrno>
#include <memory>

#include "contract/nvml.h"
#include "contract/workers.h"
#include "core/file.h"
#include "core/sha256.h"
#include "sandbox/spawn.h"

namespace ratchet {
namespace {

int CollectPath(struct dl_phdr_info* info, size_t /*size*/, void* data) {
  auto* paths = static_cast<std::vector<std::string>*>(data);
  // The main program comes with an empty name, the vdso with a name that is no file.
  if (info->dlpi_name != nullptr && info->dlpi_name[0] == '/') paths->push_back(info->dlpi_name);
  return 0;
}

// The value of the first "key : value" line of /proc/cpuinfo text whose key is `key`.
std::optional<std::string> CpuinfoField(std::string_view text, std::string_view key) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = line.substr(0, colon);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
    if (name != key) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
      value.remove_prefix(1);
    }
    while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) value.remove_suffix(1);
    return std::string(value);
  }
  return std::nullopt;
}

}  // namespace

Result<std::string> RunningBinarySha256() {
  Result<std::string> digest = Sha256File("/proc/self/exe");
  if (!digest.ok()) return digest.status().Annotate("hashing the running binary");
  return digest;
}

std::string CompilerVersion() {
#if defined(__clang__)
  return std::string("clang++ ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "unknown";
#endif
}

std::string GlibcVersion() { return gnu_get_libc_version(); }

Result<std::vector<LoadedLibrary>> LoadedLibraries() {
  std::vector<std::string> paths;
  dl_iterate_phdr(CollectPath, &paths);
  std::vector<LoadedLibrary> libraries;
  for (const std::string& path : paths) {
    std::unique_ptr<char, decltype(&free)> resolved(realpath(path.c_str(), nullptr), &free);
    if (!resolved) return Status::IOError("realpath " + path + " (a loaded library)", errno);
    Result<std::string> digest = Sha256File(resolved.get());
    if (!digest.ok()) return digest.status().Annotate("hashing the loaded library " + path);
    libraries.push_back({BaseName(path), path, *digest});
  }
  return libraries;
}

std::string ParseProcessorModel(std::string_view cpuinfo) {
  for (const char* key : {"model name", "Hardware", "cpu model"}) {
    std::optional<std::string> value = CpuinfoField(cpuinfo, key);
    if (value && !value->empty()) return *value;
  }
  return "unknown";
}

std::string ProcessorModel() {
  Result<std::string> text = ReadFile("/proc/cpuinfo");
  return text.ok() ? ParseProcessorModel(*text) : "unknown";
}

Result<std::optional<std::string>> Sha256IfPresent(const Result<std::string>& found) {
  if (!found.ok()) {
    if (found.status().code() == Status::Code::kUnavailable) return std::optional<std::string>();
    return found.status();
  }
  Result<std::string> digest = Sha256File(*found);
  if (!digest.ok()) return digest.status().Annotate("hashing " + *found);
  return std::optional<std::string>(*digest);
}

Result<std::optional<std::string>> NativeLibtorchVersion() {
  if (!PathExists(NativeToolchainPath())) return std::optional<std::string>();
  Result<Json> toolchain = NativeToolchain();
  // A description the worker's build wrote badly is the harness's problem, not the user's input.
  if (!toolchain.ok()) return Status::Unavailable(toolchain.status().message());
  auto libtorch = toolchain->find("libtorch");
  if (libtorch == toolchain->end() || !libtorch->is_string()) return std::optional<std::string>();
  return std::optional<std::string>(libtorch->get<std::string>());
}

Result<MachineFacts> GatherMachineFacts(const std::optional<std::string>& device_uuid) {
  MachineFacts facts;
  Result<std::string> binary = RunningBinarySha256();
  if (!binary.ok()) return binary.status();
  facts.binary_sha256 = *binary;
  Result<std::optional<std::string>> worker = Sha256IfPresent(NativeWorkerPath());
  if (!worker.ok()) return worker.status();
  facts.worker_binary_sha256 = *worker;
  facts.cxx = CompilerVersion();
  Result<std::optional<std::string>> libtorch = NativeLibtorchVersion();
  if (!libtorch.ok()) return libtorch.status();
  facts.libtorch = *libtorch;
  facts.glibc = GlibcVersion();

  // Before ProbeDevice: opening the driver's library loads it and what it needs.
  Result<std::vector<LoadedLibrary>> libraries = LoadedLibraries();
  if (!libraries.ok()) return libraries.status();
  std::map<std::string, std::string> paths;
  for (const LoadedLibrary& library : *libraries) {
    auto [it, added] = facts.libraries.emplace(library.name, library.sha256);
    if (!added && it->second != library.sha256) {
      return Status::Internal("two loaded libraries are named " + library.name + ": " +
                              paths[library.name] + " and " + library.path);
    }
    paths.emplace(library.name, library.path);
  }

  Result<DeviceFacts> device = ProbeDevice(device_uuid);
  if (!device.ok()) return device.status();
  facts.device = *device;
  facts.processor = ProcessorModel();
  SandboxInfo sandbox = DescribeSandbox();
  facts.sandbox_full = sandbox.full;
  facts.sandbox_slot = sandbox.slot;
  facts.sandbox_partial_reason = sandbox.partial_reason;
  return facts;
}

}  // namespace ratchet
