#include "worker/native_method.h"

#include <dlfcn.h>

namespace ratchet {

Result<NativeMethod> NativeMethod::Load(const std::string& path) {
  if (path.empty() || path[0] != '/') {
    return Status::BadInput("the submission's path must be absolute, not \"" + path + "\"");
  }
  dlerror();
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    return Status::BadInput("dlopen " + path + ": " + (why ? why : "unknown error"));
  }
  dlerror();
  void* symbol = dlsym(library, "ratchet_method_v1");
  const char* why = dlerror();
  if (symbol == nullptr || why != nullptr) {
    return Status::BadInput(path +
                            " does not export ratchet_method_v1: a native submission includes "
                            "<ratchet/method.h> and ends with RATCHET_METHOD(method)");
  }
  return NativeMethod(reinterpret_cast<Entry>(symbol));
}

}  // namespace ratchet
