// A native submission loaded into ratchet-worker: the shared object compiled from the
// submission's .cpp, and the function its RATCHET_METHOD line exports (include/ratchet/method.h).
#ifndef RATCHET_WORKER_NATIVE_METHOD_H_
#define RATCHET_WORKER_NATIVE_METHOD_H_

#include <cstddef>
#include <string>

#include "core/status.h"

namespace ratchet {

class NativeMethod {
 public:
  // int ratchet_method_v1(const Tensor* train_x, const Tensor* train_y, const Tensor* test_x,
  //                       Tensor* out, char* error, size_t error_size): 0, or nonzero with
  // the method's exception message in `error`.
  using Entry = int (*)(const void*, const void*, const void*, void*, char*, size_t);

  // dlopen(path, RTLD_NOW | RTLD_LOCAL) and dlsym of ratchet_method_v1. The library is never
  // closed: the method may have started threads or registered destructors.
  static Result<NativeMethod> Load(const std::string& path);

  Entry entry() const { return entry_; }

 private:
  explicit NativeMethod(Entry entry) : entry_(entry) {}
  Entry entry_;
};

}  // namespace ratchet

#endif  // RATCHET_WORKER_NATIVE_METHOD_H_
