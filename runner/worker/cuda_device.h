// What ratchet-worker needs of CUDA beyond libtorch's device-generic API: the board's name, UUID
// and L2 size, CUDA events for timing, and emptying the caching allocator. cuda_device.cc is
// compiled only when the libtorch found at build time has CUDA (RATCHET_WORKER_CUDA); otherwise
// these inline fallbacks are never reached, since the worker then always runs on the CPU.
#ifndef RATCHET_WORKER_CUDA_DEVICE_H_
#define RATCHET_WORKER_CUDA_DEVICE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace ratchet {

struct CudaFacts {
  std::string name;      // "NVIDIA H200"
  std::string uuid;      // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  int64_t l2_bytes = 0;  // the L2 cache of the board
  int64_t sm_count = 0;  // its streaming multiprocessors
};

#ifdef RATCHET_WORKER_CUDA
inline constexpr bool kWorkerHasCuda = true;

// Device 0, the one every tensor of the worker lives on.
CudaFacts QueryCudaDevice();

// A start and an end event on the current stream, timing what runs between them.
class CudaEventPair {
 public:
  CudaEventPair();
  ~CudaEventPair();
  void RecordStart();
  void RecordEnd();
  // Milliseconds between the two; waits for the end event.
  double ElapsedMs();

 private:
  struct Events;
  std::unique_ptr<Events> events_;
};

void EmptyCudaCache();

// Creates this thread's cuBLAS handle and loads torch's linear-algebra library (with cuSOLVER's
// handle, through a 1x1 Cholesky factorization), which a method's first product or
// factorization would otherwise do inside its warm-up: the worker's start, which overlaps
// earlier calls, takes that time instead.
void StartCudaLibraries();

// Page-locks `bytes` at `data`, a read-only mapping, for the device's copy engines
// (cudaHostRegister with cudaHostRegisterReadOnly), so that copies from it need no staging and
// can be queued without waiting. Empty on success, otherwise why it could not be done.
std::string PinReadOnly(const void* data, size_t bytes);
#else
inline constexpr bool kWorkerHasCuda = false;

[[noreturn]] inline void NoCuda() {
  throw std::logic_error("this ratchet-worker was built without CUDA");
}
inline CudaFacts QueryCudaDevice() { NoCuda(); }
class CudaEventPair {
 public:
  void RecordStart() { NoCuda(); }
  void RecordEnd() { NoCuda(); }
  double ElapsedMs() { NoCuda(); }
};
inline void EmptyCudaCache() { NoCuda(); }
inline void StartCudaLibraries() { NoCuda(); }
inline std::string PinReadOnly(const void*, size_t) { NoCuda(); }
#endif

}  // namespace ratchet

#endif  // RATCHET_WORKER_CUDA_DEVICE_H_
