#include "contract/workers.h"

#include <unistd.h>

#include <cstdlib>

#include "core/file.h"

namespace ratchet {
namespace {

std::string ExeFolder() {
  Result<std::string> self = SelfExecutable();
  return self.ok() ? DirName(*self) : ".";
}

}  // namespace

Result<std::string> NativeWorkerPath() {
  std::string path = ExeFolder() + "/ratchet-worker";
  if (access(path.c_str(), X_OK) != 0) {
    return Status::Unavailable(
        "no native worker at " + path +
        " (it is built with libtorch: Debian's libtorch-dev; run scripts/setup)");
  }
  return path;
}

Result<std::string> PythonWorkerFile(const std::string& name) {
  const char* override_dir = std::getenv("RATCHET_WORKER_DIR");
  std::string folder =
      override_dir && *override_dir ? override_dir : ExeFolder() + "/../runner/worker";
  std::string path = folder + "/" + name;
  if (!PathExists(path)) {
    return Status::Unavailable("no " + name + " at " + path +
                               " (set $RATCHET_WORKER_DIR to the folder that holds it)");
  }
  return path;
}

std::string NativeToolchainPath() { return ExeFolder() + "/ratchet-worker.native.json"; }

Result<Json> NativeToolchain() {
  const std::string path = NativeToolchainPath();
  if (!PathExists(path)) {
    return Status::Unavailable(
        "no native toolchain description at " + path +
        " (the worker's build writes it; libtorch is needed: run scripts/setup)");
  }
  Result<std::string> text = ReadFile(path, 1 << 20);
  if (!text.ok()) return text.status();
  Result<Json> toolchain = ParseJson(*text, path);
  if (!toolchain.ok()) return toolchain.status();
  if (!toolchain->is_object() || !(*toolchain)["cxx"].is_string() ||
      !(*toolchain)["flags"].is_array() || !(*toolchain)["libs"].is_array()) {
    return Status::Unavailable(path + " lacks cxx, flags or libs");
  }
  return toolchain;
}

}  // namespace ratchet
