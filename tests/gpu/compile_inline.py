"""Nearest class means whose last step is a CUDA kernel built with
torch.utils.cpp_extension.load_inline in the warm-up inside the sandbox: ninja (found on the
interpreter's own PATH), nvcc, the CUDA headers and a C++ compiler must be in the worker's view.
scripts/gpu-test expects it to qualify."""
import functools

import torch

CUDA_SOURCE = r"""
#include <torch/extension.h>
__global__ void negate_kernel(const float* src, float* dst, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) dst[i] = -src[i];
}
torch::Tensor negate(torch::Tensor src) {
  auto dst = torch::empty_like(src);
  int64_t n = src.numel();
  negate_kernel<<<(n + 255) / 256, 256>>>(src.data_ptr<float>(), dst.data_ptr<float>(), n);
  return dst;
}
"""


@functools.cache
def extension():
    from torch.utils.cpp_extension import load_inline

    return load_inline(name="ratchet_negate", cpp_sources="torch::Tensor negate(torch::Tensor src);",
                       cuda_sources=CUDA_SOURCE, functions=["negate"], verbose=False)


def method(train_x, train_y, test_x):
    onehot = (train_y[:, None] == torch.arange(10, device=train_y.device)).float()
    means = (onehot.t() @ train_x) / onehot.sum(0).clamp_min(1)[:, None]
    distances = (means.pow(2).sum(1) - 2 * test_x @ means.t()).contiguous()
    return extension().negate(distances).argmax(1)
