// Kernels of the compact basis: Q in half precision with a scale per column, read by CGS2's
// projections and subtractions, and each new column's encoding. Every pass streams the half
// codes once, coalesced (a warp reads 128 bytes of a column per step), so CGS2 over the
// compact basis moves half the bytes of the float basis.
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>

#include "gpu/compact_basis_kernels.hpp"
#include "gpu/kernel_constants.hpp"
#include "gpu/reductions.cuh"

namespace rbf {
namespace gpu {
namespace {

constexpr int kCoefficients = 2048;  // h * scale values staged in shared memory at a time

__device__ __forceinline__ const __half2* column_pairs(const unsigned short* qh, std::size_t ld, int j, int row) {
  return reinterpret_cast<const __half2*>(qh + static_cast<std::size_t>(j) * ld + row);
}

// One block per kCompactProjectRows rows (blockIdx.x) and column group (blockIdx.y): v's rows
// in shared memory, each warp a column at a time, its partial sum into partial[block * cols + j].
__global__ void __launch_bounds__(kBlock)
    compact_project_kernel(const unsigned short* __restrict__ qh, std::size_t ld, int cols, int padded_rows,
                           const float* __restrict__ v, float* __restrict__ partial) {
  __shared__ float2 rows_v[kCompactProjectRows / 2];
  const int first = blockIdx.x * kCompactProjectRows;
  const int pairs = min(kCompactProjectRows, padded_rows - first) / 2;
  const float2* v2 = reinterpret_cast<const float2*>(v + first);
  for (int p = threadIdx.x; p < pairs; p += kBlock) rows_v[p] = v2[p];
  __syncthreads();
  const int lane = threadIdx.x & 31;
  for (int j = blockIdx.y * kWarps + (threadIdx.x >> 5); j < cols; j += gridDim.y * kWarps) {
    const __half2* col = column_pairs(qh, ld, j, first);
    float acc0 = 0.f, acc1 = 0.f;
#pragma unroll 4
    for (int p = lane; p < pairs; p += 32) {
      const float2 q = __half22float2(col[p]);
      const float2 x = rows_v[p];
      acc0 = fmaf(q.x, x.x, acc0);
      acc1 = fmaf(q.y, x.y, acc1);
    }
    float acc = acc0 + acc1;
    for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, offset);
    if (lane == 0) partial[static_cast<std::size_t>(blockIdx.x) * cols + j] = acc;
  }
}

// h[j] = scale[j] * the fixed-order sum of the blocks' partial sums.
__global__ void compact_project_sum_kernel(const float* __restrict__ partial, int blocks, int cols,
                                           const float* __restrict__ scale, float* __restrict__ h) {
  const int j = blockIdx.x * kBlock + threadIdx.x;
  if (j >= cols) return;
  double sum = 0.0;
  for (int b = 0; b < blocks; ++b) sum += partial[static_cast<std::size_t>(b) * cols + j];
  h[j] = static_cast<float>(sum * scale[j]);
}

// Thread t owns rows 2t and 2t + 1; the coefficients scale[j] h[j] come through shared memory.
__global__ void __launch_bounds__(kBlock)
    compact_subtract_kernel(const unsigned short* __restrict__ qh, const float* __restrict__ scale, std::size_t ld,
                            int cols, int padded_rows, const float* __restrict__ h, const float* v, float* out) {
  __shared__ float coefficient[kCoefficients];
  const int p = blockIdx.x * kBlock + threadIdx.x;
  const bool mine = 2 * p < padded_rows;
  float2 acc0 = make_float2(0.f, 0.f), acc1 = make_float2(0.f, 0.f);
  for (int j0 = 0; j0 < cols; j0 += kCoefficients) {
    const int count = min(kCoefficients, cols - j0);
    __syncthreads();
    for (int t = threadIdx.x; t < count; t += kBlock) coefficient[t] = scale[j0 + t] * h[j0 + t];
    __syncthreads();
    if (!mine) continue;
    int j = 0;
    // Two accumulators: twice the loads in flight, and shorter rounding chains.
    for (; j + 1 < count; j += 2) {
      const float2 qa = __half22float2(column_pairs(qh, ld, j0 + j, 0)[p]);
      const float2 qb = __half22float2(column_pairs(qh, ld, j0 + j + 1, 0)[p]);
      acc0.x = fmaf(coefficient[j], qa.x, acc0.x);
      acc0.y = fmaf(coefficient[j], qa.y, acc0.y);
      acc1.x = fmaf(coefficient[j + 1], qb.x, acc1.x);
      acc1.y = fmaf(coefficient[j + 1], qb.y, acc1.y);
    }
    if (j < count) {
      const float2 qa = __half22float2(column_pairs(qh, ld, j0 + j, 0)[p]);
      acc0.x = fmaf(coefficient[j], qa.x, acc0.x);
      acc0.y = fmaf(coefficient[j], qa.y, acc0.y);
    }
  }
  if (!mine) return;
  const float2 x = reinterpret_cast<const float2*>(v)[p];
  reinterpret_cast<float2*>(out)[p] = make_float2(x.x - (acc0.x + acc1.x), x.y - (acc0.y + acc1.y));
}

__device__ __forceinline__ float block_max(float v) {
  __shared__ float warp_max[kWarps];
  for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, offset));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0) warp_max[warp] = v;
  __syncthreads();
  float m = 0.f;
  if (threadIdx.x == 0)
    for (int w = 0; w < kWarps; ++w) m = fmaxf(m, warp_max[w]);
  return m;
}

__global__ void __launch_bounds__(kBlock) compact_stats_kernel(const float* __restrict__ v, int padded_rows,
                                                               double* __restrict__ stats) {
  double sum = 0.0;
  float largest = 0.f;
  for (int i = blockIdx.x * kBlock + threadIdx.x; i < padded_rows; i += gridDim.x * kBlock) {
    const float x = v[i];
    sum += static_cast<double>(x) * x;
    largest = fmaxf(largest, fabsf(x));
  }
  sum = block_sum(sum);
  largest = block_max(largest);
  if (threadIdx.x == 0) {
    stats[2 * blockIdx.x] = sum;
    stats[2 * blockIdx.x + 1] = largest;
  }
}

// In thread 0 of a one-block launch: the sum of squares and the largest magnitude.
__device__ __forceinline__ void combine_stats(const double* stats, double& sum, double& largest) {
  double s = 0.0, m = 0.0;
  for (int b = threadIdx.x; b < kCompactStatBlocks; b += kBlock) {
    s += stats[2 * b];
    m = fmax(m, stats[2 * b + 1]);
  }
  sum = block_sum(s);
  largest = static_cast<double>(block_max(static_cast<float>(m)));
}

// The factor taking a column of norm sqrt(sum) and largest entry `largest` to codes whose
// largest lies in (2^14, 2^15]: a power of two over the norm, so every code is a normal half
// well inside its range whatever the rows.
__device__ __forceinline__ float encode_factor(double sum, double largest) {
  if (!(sum > 0.0) || !(largest > 0.0)) return 0.f;
  const double norm = sqrt(sum);
  int exponent = 0;
  frexp(largest / norm, &exponent);
  return static_cast<float>(ldexp(1.0, 15 - exponent) / norm);
}

__global__ void compact_cgs_finish_kernel(const double* __restrict__ phi_stats, const double* __restrict__ u_stats,
                                          const float* __restrict__ h1, const float* __restrict__ h2, int cols,
                                          double tol, unsigned char* mark, unsigned char used_mark,
                                          double* __restrict__ results, int h_offset, float* __restrict__ encode) {
  double np2 = 0.0, nu2 = 0.0, ignored = 0.0, largest = 0.0;
  combine_stats(phi_stats, np2, ignored);
  combine_stats(u_stats, nu2, largest);
  if (threadIdx.x == 0) {
    const bool dependent = !(nu2 > tol * np2);  // NaN counts as dependent
    results[kNormPhi] = sqrt(np2);
    results[kNormPhi2] = np2;
    results[kNormU] = sqrt(nu2);
    results[kNormU2] = nu2;
    results[kDependent] = dependent ? 1.0 : 0.0;
    results[kReorthogonalize] = 1.0;  // the compact basis always projects twice
    encode[0] = dependent ? 0.f : encode_factor(nu2, largest);
    if (mark != nullptr) *mark = used_mark;
  }
  for (int j = threadIdx.x; j < cols; j += kBlock)
    results[h_offset + j] = static_cast<double>(h1[j]) + static_cast<double>(h2[j]);
}

__global__ void compact_prepare_kernel(const double* __restrict__ stats, float* __restrict__ encode) {
  double sum = 0.0, largest = 0.0;
  combine_stats(stats, sum, largest);
  if (threadIdx.x == 0) encode[0] = encode_factor(sum, largest);
}

__global__ void __launch_bounds__(kBlock)
    compact_encode_kernel(const float* __restrict__ u, int padded_rows, const float* __restrict__ encode,
                          double* __restrict__ sums, __half* __restrict__ code) {
  const float factor = encode[0];
  if (factor == 0.f) return;
  double sum = 0.0;
  for (int i = blockIdx.x * kBlock + threadIdx.x; i < padded_rows; i += gridDim.x * kBlock) {
    const __half c = __float2half_rn(u[i] * factor);
    code[i] = c;
    const double back = __half2float(c);
    sum += back * back;
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) sums[blockIdx.x] = sum;
}

__global__ void compact_scale_kernel(const float* __restrict__ encode, const double* __restrict__ sums,
                                     float* __restrict__ scale_entry) {
  if (encode[0] == 0.f) return;
  double s = 0.0;
  for (int b = threadIdx.x; b < kCompactStatBlocks; b += kBlock) s += sums[b];
  s = block_sum(s);
  if (threadIdx.x == 0) scale_entry[0] = static_cast<float>(1.0 / sqrt(s));
}

__global__ void __launch_bounds__(kBlock)
    compact_decode_kernel(const __half* __restrict__ code, const float* __restrict__ scale_entry, int padded_rows,
                          const float* encode, float* __restrict__ out) {
  if (encode != nullptr && encode[0] == 0.f) return;
  const float scale = scale_entry[0];
  for (int i = blockIdx.x * kBlock + threadIdx.x; i < padded_rows; i += gridDim.x * kBlock)
    out[i] = __half2float(code[i]) * scale;
}

int row_blocks(int padded_rows) {
  return std::min(kCompactStatBlocks, std::max(1, blocks_for(static_cast<std::size_t>(padded_rows), kBlock)));
}

}  // namespace

cudaError_t launch_compact_project(const unsigned short* qh, const float* scale, std::size_t ld, int cols,
                                   int padded_rows, const float* v, float* partial, float* h, cudaStream_t stream) {
  if (cols <= 0) return cudaSuccess;
  const int blocks = compact_project_blocks(static_cast<std::size_t>(padded_rows));
  // Few row blocks (under a million rows) split the columns too, so every SM has work.
  constexpr int kBlocksWanted = 512;
  const int groups = std::max(1, std::min(blocks_for(static_cast<std::size_t>(cols), kWarps), kBlocksWanted / blocks));
  compact_project_kernel<<<dim3(blocks, std::min(groups, kMaxGridY)), kBlock, 0, stream>>>(qh, ld, cols, padded_rows, v,
                                                                                       partial);
  compact_project_sum_kernel<<<blocks_for(cols, kBlock), kBlock, 0, stream>>>(partial, blocks, cols, scale, h);
  return cudaGetLastError();
}

cudaError_t launch_compact_subtract(const unsigned short* qh, const float* scale, std::size_t ld, int cols,
                                    int padded_rows, const float* h, const float* v, float* out,
                                    cudaStream_t stream) {
  compact_subtract_kernel<<<blocks_for(static_cast<std::size_t>(padded_rows / 2), kBlock), kBlock, 0, stream>>>(
      qh, scale, ld, cols, padded_rows, h, v, out);
  return cudaGetLastError();
}

cudaError_t launch_compact_stats(const float* v, int padded_rows, double* stats, cudaStream_t stream) {
  // Blocks past the rows write zeros, so the combine always reads kCompactStatBlocks entries.
  compact_stats_kernel<<<kCompactStatBlocks, kBlock, 0, stream>>>(v, padded_rows, stats);
  return cudaGetLastError();
}

cudaError_t launch_compact_cgs_finish(const double* phi_stats, const double* u_stats, const float* h1,
                                      const float* h2, int cols, double tol, unsigned char* mark,
                                      unsigned char used_mark, double* results, int h_offset, float* encode,
                                      cudaStream_t stream) {
  compact_cgs_finish_kernel<<<1, kBlock, 0, stream>>>(phi_stats, u_stats, h1, h2, cols, tol, mark, used_mark,
                                                      results, h_offset, encode);
  return cudaGetLastError();
}

cudaError_t launch_compact_prepare(const double* stats, float* encode, cudaStream_t stream) {
  compact_prepare_kernel<<<1, kBlock, 0, stream>>>(stats, encode);
  return cudaGetLastError();
}

cudaError_t launch_compact_store(float* u, int padded_rows, const float* encode, double* sums,
                                 unsigned short* qh_column, float* scale_entry, cudaStream_t stream) {
  __half* code = reinterpret_cast<__half*>(qh_column);
  const int blocks = row_blocks(padded_rows);
  // The scale sums kCompactStatBlocks entries: blocks that do not run must leave zeros.
  const cudaError_t cleared = cudaMemsetAsync(sums, 0, kCompactStatBlocks * sizeof(double), stream);
  if (cleared != cudaSuccess) return cleared;
  compact_encode_kernel<<<blocks, kBlock, 0, stream>>>(u, padded_rows, encode, sums, code);
  compact_scale_kernel<<<1, kBlock, 0, stream>>>(encode, sums, scale_entry);
  compact_decode_kernel<<<blocks, kBlock, 0, stream>>>(code, scale_entry, padded_rows, encode, u);
  return cudaGetLastError();
}

cudaError_t launch_compact_decode(const unsigned short* qh_column, const float* scale_entry, int padded_rows,
                                  float* out, cudaStream_t stream) {
  compact_decode_kernel<<<row_blocks(padded_rows), kBlock, 0, stream>>>(
      reinterpret_cast<const __half*>(qh_column), scale_entry, padded_rows, nullptr, out);
  return cudaGetLastError();
}

}  // namespace gpu
}  // namespace rbf
