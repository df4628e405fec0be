// Compiled only against a libtorch with CUDA (see CMakeLists.txt).
#include "worker/cuda_device.h"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>

#include <cstdio>

namespace ratchet {

CudaFacts QueryCudaDevice() {
  const cudaDeviceProp* properties = at::cuda::getDeviceProperties(0);
  CudaFacts facts;
  facts.name = properties->name;
  const unsigned char* b = reinterpret_cast<const unsigned char*>(properties->uuid.bytes);
  char uuid[64];
  std::snprintf(uuid, sizeof uuid,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  facts.uuid = uuid;
  facts.l2_bytes = properties->l2CacheSize;
  facts.sm_count = properties->multiProcessorCount;
  return facts;
}

struct CudaEventPair::Events {
  at::cuda::CUDAEvent start{cudaEventDefault};
  at::cuda::CUDAEvent end{cudaEventDefault};
};

CudaEventPair::CudaEventPair() : events_(std::make_unique<Events>()) {}
CudaEventPair::~CudaEventPair() = default;
void CudaEventPair::RecordStart() { events_->start.record(); }
void CudaEventPair::RecordEnd() { events_->end.record(); }
double CudaEventPair::ElapsedMs() {
  events_->end.synchronize();
  return events_->start.elapsed_time(events_->end);
}

void EmptyCudaCache() { c10::cuda::CUDACachingAllocator::emptyCache(); }

void StartCudaLibraries() {
  at::cuda::getCurrentCUDABlasHandle();
  // torch's linear-algebra library (and with it cuSOLVER's handle) is loaded on first use.
  at::linalg_cholesky(at::ones({1, 1}, at::TensorOptions().device(at::kCUDA)));
}

std::string PinReadOnly(const void* data, size_t bytes) {
  cudaError_t code = cudaHostRegister(const_cast<void*>(data), bytes, cudaHostRegisterReadOnly);
  if (code == cudaSuccess) return "";
  cudaGetLastError();  // a failed registration is not an error of later calls
  return std::string("cudaHostRegister: ") + cudaGetErrorString(code);
}

}  // namespace ratchet
