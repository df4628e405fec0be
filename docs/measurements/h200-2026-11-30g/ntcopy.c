// Copies for the inputs-step probe: plain (memcpy), non-temporal stores, and a cache-line flush.
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
void plain_copy(char* dst, const char* src, size_t n) { memcpy(dst, src, n); }
__attribute__((target("avx2"))) void nt_copy(char* dst, const char* src, size_t n) {
  size_t i = 0;
  while (i < n && ((uintptr_t)(dst + i) & 31)) { dst[i] = src[i]; ++i; }
  for (; i + 32 <= n; i += 32) {
    __m256i v = _mm256_loadu_si256((const __m256i*)(src + i));
    _mm256_stream_si256((__m256i*)(dst + i), v);
  }
  for (; i < n; ++i) dst[i] = src[i];
  _mm_sfence();
}
void flush_lines(char* p, size_t n) {
  for (size_t i = 0; i < n; i += 64) _mm_clflush(p + i);
  _mm_mfence();
}
