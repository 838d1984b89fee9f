// Kernels that evaluate Gaussian candidate columns of Phi_C from X and the centers: a tile of
// columns at a time (fused distance + exp), or one column, with the same operations in the
// same order as the CPU backend so that both see the same values.
#include <algorithm>
#include <cstddef>

#include "gpu/gaussian_column_kernels.hpp"
#include "gpu/kernel_constants.hpp"
#include "gpu/reductions.cuh"

namespace rbf {
namespace gpu {
namespace {

// Evaluation tile: each thread computes kEvalRows rows x kEvalCols candidates, centers are
// staged in shared memory kEvalDepth features at a time (any d works).
constexpr int kEvalRows = 2;
constexpr int kEvalCols = 16;
constexpr int kEvalDepth = 32;
constexpr int kEvalRowsPerBlock = kBlock * kEvalRows;

// Exact IEEE operations, never contracted into FMAs: the CPU backend sums the same products
// in the same order, so both backends see the same distances.
__device__ __forceinline__ float sq_diff_add(float acc, float x, float c) {
  const float diff = __fsub_rn(x, c);
  return __fadd_rn(acc, __fmul_rn(diff, diff));
}
__device__ __forceinline__ double sq_diff_add(double acc, double x, double c) {
  const double diff = __dsub_rn(x, c);
  return __dadd_rn(acc, __dmul_rn(diff, diff));
}

template <typename T>
__global__ void __launch_bounds__(kBlock)
    eval_columns_kernel(const T* __restrict__ xt, std::size_t ldx, int rows, int padded_rows,
                        int d, const T* __restrict__ centers, const T* __restrict__ gamma,
                        int first, int count, T* __restrict__ out, std::size_t ldo,
                        const T* __restrict__ row_scale) {
  __shared__ T tile[kEvalCols][kEvalDepth];
  const int row0 = blockIdx.x * kEvalRowsPerBlock + threadIdx.x;
  const int col0 = blockIdx.y * kEvalCols;  // relative to `first`
  T acc[kEvalRows][kEvalCols];
#pragma unroll
  for (int r = 0; r < kEvalRows; ++r)
#pragma unroll
    for (int j = 0; j < kEvalCols; ++j) acc[r][j] = T(0);

  for (int k0 = 0; k0 < d; k0 += kEvalDepth) {
    const int depth = min(kEvalDepth, d - k0);
    for (int e = threadIdx.x; e < kEvalCols * kEvalDepth; e += kBlock) {
      const int j = e / kEvalDepth, kk = e % kEvalDepth;
      const int col = col0 + j;
      tile[j][kk] = (col < count && kk < depth)
                        ? centers[static_cast<std::size_t>(first + col) * d + k0 + kk]
                        : T(0);
    }
    __syncthreads();
    for (int kk = 0; kk < depth; ++kk) {
      T x[kEvalRows];
#pragma unroll
      for (int r = 0; r < kEvalRows; ++r) {
        const int i = row0 + r * kBlock;
        x[r] = i < padded_rows ? __ldg(xt + static_cast<std::size_t>(k0 + kk) * ldx + i) : T(0);
      }
#pragma unroll
      for (int j = 0; j < kEvalCols; ++j) {
        const T c = tile[j][kk];
#pragma unroll
        for (int r = 0; r < kEvalRows; ++r) acc[r][j] = sq_diff_add(acc[r][j], x[r], c);
      }
    }
    __syncthreads();
  }

#pragma unroll
  for (int r = 0; r < kEvalRows; ++r) {
    const int i = row0 + r * kBlock;
    if (i >= padded_rows) continue;
#pragma unroll
    for (int j = 0; j < kEvalCols; ++j) {
      const int col = col0 + j;
      if (col >= count) break;
      // Summed feature by feature the distance is never negative; the clamp only guards
      // the contract "distances clamped at 0" should the summation ever change.
      const T d2 = max(acc[r][j], T(0));
      const T phi = gauss_exp(-gamma[first + col] * d2);
      out[i + static_cast<std::size_t>(col) * ldo] = i < rows ? (row_scale != nullptr ? phi * row_scale[i] : phi) : T(0);
    }
  }
}

// One column (CGS's candidate, a node off the pool): one thread per row, the same operations
// in the same order as eval_columns_kernel, so the column is bit for bit the same; the tiled
// kernel would spend 15 of its 16 columns' work and wait on its loads one feature at a time.
template <typename T>
__global__ void __launch_bounds__(kBlock)
    eval_one_column_kernel(const T* __restrict__ xt, std::size_t ldx, int rows, int padded_rows, int d,
                           const T* __restrict__ center, const T* __restrict__ gamma, T* __restrict__ out,
                           const T* __restrict__ row_scale, const double* __restrict__ index = nullptr) {
  const int i = blockIdx.x * kBlock + threadIdx.x;
  if (i >= padded_rows) return;
  if (index != nullptr) {  // the candidate is the one a selection left on the device
    const double c = *index;
    if (c < 0.0) return;
    center += static_cast<std::size_t>(c) * static_cast<std::size_t>(d);
    gamma += static_cast<std::size_t>(c);
  }
  T acc = T(0);
#pragma unroll 4
  for (int k = 0; k < d; ++k) acc = sq_diff_add(acc, __ldg(xt + static_cast<std::size_t>(k) * ldx + i), __ldg(center + k));
  const T d2 = max(acc, T(0));
  const T phi = gauss_exp(-__ldg(gamma) * d2);
  out[i] = i < rows ? (row_scale != nullptr ? phi * row_scale[i] : phi) : T(0);
}

}  // namespace

template <typename T>
cudaError_t launch_eval_columns(const T* xt, std::size_t ldx, int rows, int padded_rows, int d,
                                const T* centers, const T* gamma, int first, int count, T* out,
                                std::size_t ldo, cudaStream_t stream, const T* row_scale) {
  if (count == 1) {
    eval_one_column_kernel<T><<<blocks_for(static_cast<std::size_t>(padded_rows), kBlock), kBlock, 0, stream>>>(
        xt, ldx, rows, padded_rows, d, centers + static_cast<std::size_t>(first) * d, gamma + first, out, row_scale);
    return cudaGetLastError();
  }
  const int row_blocks = blocks_for(static_cast<std::size_t>(padded_rows), kEvalRowsPerBlock);
  for (int done = 0; done < count;) {
    const int chunk = std::min(count - done, kMaxGridY * kEvalCols);
    const dim3 grid(row_blocks, blocks_for(static_cast<std::size_t>(chunk), kEvalCols));
    eval_columns_kernel<T><<<grid, kBlock, 0, stream>>>(
        xt, ldx, rows, padded_rows, d, centers, gamma, first + done, chunk,
        out + static_cast<std::size_t>(done) * ldo, ldo, row_scale);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) return status;
    done += chunk;
  }
  return cudaSuccess;
}

template <typename T>
cudaError_t preload_column_kernel() {
  cudaFuncAttributes attributes;
  return cudaFuncGetAttributes(&attributes, eval_one_column_kernel<T>);
}

template <typename T>
cudaError_t launch_eval_selected_column(const T* xt, std::size_t ldx, int rows, int padded_rows, int d,
                                        const T* centers, const T* gamma, const double* index, T* out,
                                        cudaStream_t stream, const T* row_scale) {
  eval_one_column_kernel<T><<<blocks_for(static_cast<std::size_t>(padded_rows), kBlock), kBlock, 0, stream>>>(
      xt, ldx, rows, padded_rows, d, centers, gamma, out, row_scale, index);
  return cudaGetLastError();
}

#define RBF_INSTANTIATE(T)                                                                      \
  template cudaError_t launch_eval_columns<T>(const T*, std::size_t, int, int, int, const T*,    \
                                              const T*, int, int, T*, std::size_t,              \
                                              cudaStream_t, const T*);                          \
  template cudaError_t preload_column_kernel<T>();                                               \
  template cudaError_t launch_eval_selected_column<T>(const T*, std::size_t, int, int, int,     \
                                                      const T*, const T*, const double*, T*,    \
                                                      cudaStream_t, const T*);
RBF_INSTANTIATE(float)
RBF_INSTANTIATE(double)
#undef RBF_INSTANTIATE

}  // namespace gpu
}  // namespace rbf
