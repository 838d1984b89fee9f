// Device-side building blocks shared by the kernels: 16-byte vector types, block-wide sums and
// argmax, and the "last block combines" step that keeps reductions deterministic.
#pragma once

#include <cuda_runtime.h>

namespace rbf {
namespace gpu {

constexpr int kBlock = 256;  // threads per block of every reduction kernel
constexpr int kWarps = kBlock / 32;

// Cache-hinted loads. __ldcs/__ldcg are used from CUDA 11 on, whose headers are known to declare
// them for every type here; older toolkits (CUDA 10.2 on JetPack 4.6)
// get a plain load for streaming data and a volatile load, which also skips L1, for
// values other blocks of the same kernel wrote.
template <typename T>
__device__ __forceinline__ T load_streaming(const T* p) {
#if CUDART_VERSION >= 11000
  return __ldcs(p);
#else
  return *p;
#endif
}

template <typename T>
__device__ __forceinline__ T load_coherent(const T* p) {
#if CUDART_VERSION >= 11000
  return __ldcg(p);
#else
  return *const_cast<const volatile T*>(p);
#endif
}

template <typename T>
struct Vec16;
template <>
struct Vec16<float> {
  using type = float4;
  static constexpr int width = 4;
};
template <>
struct Vec16<double> {
  using type = double2;
  static constexpr int width = 2;
};

__device__ __forceinline__ float dot_acc(const float4& a, const float4& b, float acc) {
  acc = fmaf(a.x, b.x, acc);
  acc = fmaf(a.y, b.y, acc);
  acc = fmaf(a.z, b.z, acc);
  return fmaf(a.w, b.w, acc);
}
__device__ __forceinline__ double dot_acc(const double2& a, const double2& b, double acc) {
  acc = fma(a.x, b.x, acc);
  return fma(a.y, b.y, acc);
}
__device__ __forceinline__ float4 zero_vec(float4) { return make_float4(0.f, 0.f, 0.f, 0.f); }
__device__ __forceinline__ double2 zero_vec(double2) { return make_double2(0.0, 0.0); }

__device__ __forceinline__ float gauss_exp(float v) { return expf(v); }
__device__ __forceinline__ double gauss_exp(double v) { return exp(v); }

// Sum over a block of kBlock threads, in a fixed order; the total is valid in thread 0.
template <typename T>
__device__ __forceinline__ T block_sum(T v) {
  __shared__ T warp_sums[kWarps];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();  // warp_sums may still be read by a previous call
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  T total = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < kWarps; ++w) total += warp_sums[w];
  return total;
}

// (score, index) order for the argmax: higher score first, then the lower index; index -1
// means "none" and loses to everything.
__device__ __forceinline__ bool better(double s1, long long i1, double s2, long long i2) {
  if (i1 < 0) return false;
  if (i2 < 0) return true;
  return s1 > s2 || (s1 == s2 && i1 < i2);
}

// Argmax over a block; the winner is valid in thread 0.
__device__ __forceinline__ void block_argmax(double& score, long long& index) {
  __shared__ double warp_score[kWarps];
  __shared__ long long warp_index[kWarps];
  for (int offset = 16; offset > 0; offset >>= 1) {
    const double s = __shfl_down_sync(0xffffffffu, score, offset);
    const long long i = __shfl_down_sync(0xffffffffu, index, offset);
    if (better(s, i, score, index)) {
      score = s;
      index = i;
    }
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0) {
    warp_score[warp] = score;
    warp_index[warp] = index;
  }
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < kWarps; ++w)
      if (better(warp_score[w], warp_index[w], score, index)) {
        score = warp_score[w];
        index = warp_index[w];
      }
}

// Thread 0 of each block has published its value(s); returns true in every thread of the
// block that finished last (which then combines all blocks' values and resets the ticket).
__device__ __forceinline__ bool last_block_done(unsigned int* ticket) {
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    __threadfence();
    const unsigned int t = atomicAdd(ticket, 1u);
    is_last = (t == gridDim.x - 1);
  }
  __syncthreads();
  return is_last;
}

// In the last block: the fixed-order sum of `count` published values (valid in thread 0).
__device__ __forceinline__ double combine_sums(const double* values, int count) {
  double v = 0.0;
  for (int b = threadIdx.x; b < count; b += kBlock) v += load_coherent(values + b);
  return block_sum(v);
}

}  // namespace gpu
}  // namespace rbf
