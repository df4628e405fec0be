// The one header a native ratchet submission includes. A submission is one .cpp file that
// defines its method and exports it with RATCHET_METHOD:
//
//   #include <ratchet/method.h>
//
//   torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
//                        const torch::Tensor& test_x) {
//     ...  // train_x f32[n x d], train_y i64[n], test_x f32[m x d], all on the scoring device
//     return labels;  // an integer tensor of shape [m] on the same device
//   }
//   RATCHET_METHOD(method)
//
// ratchet-worker dlopens the compiled library and calls the exported function once per call.
// Every C++ exception the method throws is caught here and reported as the method's error.
#ifndef RATCHET_METHOD_H_
#define RATCHET_METHOD_H_

#include <torch/types.h>

#include <cstddef>
#include <cstring>
#include <exception>
#include <initializer_list>

// The symbol ratchet-worker looks up; the _v1 is the version of this calling convention.
#define RATCHET_METHOD_SYMBOL "ratchet_method_v1"

namespace ratchet {
namespace native {

// Copies the start of prefix + text into error[0..error_size), always NUL-terminated, without
// allocating (it runs inside a catch block).
inline void CopyError(const char* prefix, const char* text, char* error, size_t error_size) {
  if (error == nullptr || error_size == 0) return;
  size_t used = 0;
  for (const char* part : {prefix, text}) {
    size_t n = std::strlen(part);
    if (n > error_size - 1 - used) n = error_size - 1 - used;
    std::memcpy(error + used, part, n);
    used += n;
  }
  error[used] = '\0';
}

// Calls `method` on the tensors behind the pointers and stores its result in *out. Returns 0,
// or 1 with the exception's message in `error`: nothing thrown crosses into the worker.
template <typename Method>
int Invoke(Method&& method, const void* train_x, const void* train_y, const void* test_x, void* out,
           char* error, size_t error_size) noexcept {
  try {
    *static_cast<torch::Tensor*>(out) = method(*static_cast<const torch::Tensor*>(train_x),
                                               *static_cast<const torch::Tensor*>(train_y),
                                               *static_cast<const torch::Tensor*>(test_x));
    return 0;
  } catch (const c10::Error& e) {
    // what() would append a C++ backtrace; the message is what the author needs.
    CopyError("c10::Error: ", e.what_without_backtrace(), error, error_size);
  } catch (const std::exception& e) {
    CopyError("std::exception: ", e.what(), error, error_size);
  } catch (...) {
    CopyError("", "the method threw something that is not a std::exception", error, error_size);
  }
  return 1;
}

}  // namespace native
}  // namespace ratchet

// Exports `fn` (a function taking three const torch::Tensor& and returning torch::Tensor) as
// the submission's method, under the C name ratchet_method_v1.
#define RATCHET_METHOD(fn)                                                                  \
  extern "C" __attribute__((visibility("default"))) int ratchet_method_v1(                  \
      const void* train_x, const void* train_y, const void* test_x, void* out, char* error, \
      size_t error_size) noexcept {                                                         \
    return ::ratchet::native::Invoke(fn, train_x, train_y, test_x, out, error, error_size); \
  }

#endif  // RATCHET_METHOD_H_
