// The matrix-free scoring pass: each Gaussian is computed from X and the candidate centers,
// multiplied by v and reduced in registers, so Phi_C is never written to memory. Here: the
// CUDA-core kernel, which does it with FMAs where tensor cores do not apply (double, GPUs
// before sm_80, d > kMatrixFreeTensorMaxD), its operands, the sum over row splits, and the
// launchers, which hand the pass to matrix_free_tensor_core_kernels.cu where the plan
// (matrix_free_plan.cpp) chose tensor cores.
#include <cmath>
#include <cstddef>

#include "gpu/kernel_constants.hpp"
#include "gpu/matrix_free_kernels.hpp"
#include "gpu/matrix_free_plan.hpp"
#include "gpu/matrix_free_tensor_core_kernels.hpp"
#include "gpu/reductions.cuh"

namespace rbf {
namespace gpu {
namespace {

// ---------------------------------------------------------------- CUDA-core operands
// x~_i = [x_i, 1, ||x_i||^2] and c~_c = L g_c [2 c, -||c||^2, -1], so x~ . c~ is the exponent.

__host__ __device__ constexpr int simt_stride(int d) { return d + 2; }

template <typename T>
__global__ void simt_rows_kernel(const T* __restrict__ xt, std::size_t ldx, int rows,
                                 int padded_rows, int d, T* __restrict__ x_aug) {
  const int stride = simt_stride(d);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= padded_rows) return;
  T* out = x_aug + static_cast<std::size_t>(i) * stride;
  if (i >= rows) {
    for (int f = 0; f < stride; ++f) out[f] = T(0);
    return;
  }
  double norm2 = 0.0;
  for (int f = 0; f < d; ++f) {
    const T v = xt[static_cast<std::size_t>(f) * ldx + i];
    out[f] = v;
    norm2 += static_cast<double>(v) * static_cast<double>(v);
  }
  out[d] = T(1);
  out[d + 1] = static_cast<T>(norm2);
}

template <typename T>
__global__ void simt_candidates_kernel(const T* __restrict__ centers, const T* __restrict__ gamma,
                                      int count, int padded_count, int d, T* __restrict__ c_aug) {
  const int stride = simt_stride(d);
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= padded_count) return;
  T* out = c_aug + static_cast<std::size_t>(c) * stride;
  if (c >= count) {  // padding: never written out, any finite value does
    for (int f = 0; f < stride; ++f) out[f] = T(0);
    return;
  }
  const double scale = kLog2e * static_cast<double>(gamma[c]);
  double norm2 = 0.0;
  for (int f = 0; f < d; ++f) {
    const double v = static_cast<double>(centers[static_cast<std::size_t>(c) * d + f]);
    out[f] = static_cast<T>(2.0 * scale * v);
    norm2 += v * v;
  }
  out[d] = static_cast<T>(-scale * norm2);
  out[d + 1] = static_cast<T>(-scale);
}

template <typename T>
__global__ void sum_splits_kernel(const T* __restrict__ partial, int splits, int count, T* __restrict__ dest) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= count) return;
  T sum = T(0);
#pragma unroll 8
  for (int s = 0; s < splits; ++s) sum += partial[static_cast<std::size_t>(s) * count + c];
  dest[c] = sum;
}

// ---------------------------------------------------------------- CUDA cores

__device__ __forceinline__ float exp2_clamped(float v) { return exp2f(fminf(v, 0.0f)); }
__device__ __forceinline__ double exp2_clamped(double v) { return exp2(fmin(v, 0.0)); }

template <typename T>
struct SimtShape;
template <>
struct SimtShape<float> {
  static constexpr int candidates = 32;
};
template <>
struct SimtShape<double> {
  static constexpr int candidates = 16;
};
constexpr int kSimtDepth = 64;  // augmented features staged at a time (all of them up to d = 62)

// One block: SimtShape::candidates candidates x one row split; one row per thread per trip.
template <typename T, bool kSquare>
__global__ void __launch_bounds__(kBlock) matrix_free_simt_kernel(MatrixFreePass<T> p) {
  constexpr int kCands = SimtShape<T>::candidates;
  __shared__ T tile[kCands][kSimtDepth];
  const int c0 = blockIdx.x * kCands;
  const int r_begin = blockIdx.y * p.rows_per_split;
  const int r_end = min(p.padded_rows, r_begin + p.rows_per_split);
  const int depth_total = p.d + 2;
  const bool staged_once = depth_total <= kSimtDepth;

  T acc[kCands], sq[kCands];
#pragma unroll
  for (int j = 0; j < kCands; ++j) acc[j] = sq[j] = T(0);

  for (int r0 = r_begin; r0 < r_end; r0 += kBlock) {
    const int i = r0 + threadIdx.x;
    const bool live = i < r_end;
    const T* xrow = p.x_aug + static_cast<std::size_t>(live ? i : r_begin) * simt_stride(p.d);
    T arg[kCands];
#pragma unroll
    for (int j = 0; j < kCands; ++j) arg[j] = T(0);
    for (int k0 = 0; k0 < depth_total; k0 += kSimtDepth) {
      const int depth = min(kSimtDepth, depth_total - k0);
      if (!staged_once || r0 == r_begin) {
        __syncthreads();
        for (int e = threadIdx.x; e < kCands * kSimtDepth; e += kBlock) {
          const int j = e / kSimtDepth, kk = e % kSimtDepth;
          tile[j][kk] = kk < depth ? p.c_aug[static_cast<std::size_t>(c0 + j) * simt_stride(p.d) + k0 + kk] : T(0);
        }
        __syncthreads();
      }
      for (int kk = 0; kk < depth; ++kk) {
        const T x = xrow[k0 + kk];
#pragma unroll
        for (int j = 0; j < kCands; ++j) arg[j] = fma(x, tile[j][kk], arg[j]);
      }
    }
    const T w = live ? p.v[i] : T(0);
    // Weighted rows weigh their squares (0 in padding); else real rows count once.
    const T m = !live ? T(0) : p.square_weight != nullptr ? p.square_weight[i] : (i < p.rows ? T(1) : T(0));
#pragma unroll
    for (int j = 0; j < kCands; ++j) {
      const T phi = exp2_clamped(arg[j]);
      acc[j] = fma(phi, w, acc[j]);
      if (kSquare) sq[j] = fma(phi * phi, m, sq[j]);
    }
  }

  __shared__ T sums[kWarps][kCands];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int pass = 0; pass < (kSquare ? 2 : 1); ++pass) {
    T* out = pass == 0 ? p.out : p.out_square;
#pragma unroll
    for (int j = 0; j < kCands; ++j) {
      T s = pass == 0 ? acc[j] : sq[j];
      for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_down_sync(0xffffffffu, s, offset);
      if (lane == 0) sums[warp][j] = s;
    }
    __syncthreads();
    if (threadIdx.x < kCands && c0 + static_cast<int>(threadIdx.x) < p.count) {
      T s = T(0);
      for (int w = 0; w < kWarps; ++w) s += sums[w][threadIdx.x];
      out[static_cast<std::size_t>(blockIdx.y) * p.count + c0 + threadIdx.x] = s;
    }
    __syncthreads();
  }
}

}  // namespace

template <typename T>
MatrixFreeKernelShape matrix_free_cuda_core_shape(int d) {
  MatrixFreeKernelShape shape;
  shape.kernel = reinterpret_cast<const void*>(&matrix_free_simt_kernel<T, false>);
  shape.threads = kBlock;
  shape.candidates = SimtShape<T>::candidates;
  shape.row_floats = shape.candidate_floats = simt_stride(d);
  return shape;
}

template <typename T>
cudaError_t launch_matrix_free_rows(const T* xt, std::size_t ldx, int rows, int padded_rows, int d,
                                    const MatrixFreePlan& plan, T* x_aug, cudaStream_t stream) {
  if (padded_rows <= 0) return cudaSuccess;
  if (plan.tensor_cores) return launch_tensor_core_rows(xt, ldx, rows, padded_rows, d, plan, x_aug, stream);
  simt_rows_kernel<T><<<blocks_for(static_cast<std::size_t>(padded_rows), kBlock), kBlock, 0, stream>>>(
      xt, ldx, rows, padded_rows, d, x_aug);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_matrix_free_candidates(const T* centers, const T* gamma, int count, int d,
                                          const MatrixFreePlan& plan, T* c_aug, cudaStream_t stream) {
  const int padded_count = matrix_free_padded_count(count);
  if (padded_count <= 0) return cudaSuccess;
  if (plan.tensor_cores)
    return launch_tensor_core_candidates(centers, gamma, count, padded_count, d, plan, c_aug, stream);
  simt_candidates_kernel<T><<<blocks_for(static_cast<std::size_t>(padded_count), kBlock), kBlock, 0, stream>>>(
      centers, gamma, count, padded_count, d, c_aug);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_sum_splits(const T* partial, int splits, int count, T* dest, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  sum_splits_kernel<T><<<blocks_for(static_cast<std::size_t>(count), kBlock), kBlock, 0, stream>>>(
      partial, splits, count, dest);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_matrix_free_pass(const MatrixFreePass<T>& pass, const MatrixFreePlan& plan,
                                    cudaStream_t stream) {
  if (pass.count <= 0) return cudaSuccess;
  if (!plan.tensor_cores) {
    const bool square = pass.out_square != nullptr;
    const dim3 grid(blocks_for(static_cast<std::size_t>(pass.count), SimtShape<T>::candidates), pass.splits);
    if (square)
      matrix_free_simt_kernel<T, true><<<grid, kBlock, 0, stream>>>(pass);
    else
      matrix_free_simt_kernel<T, false><<<grid, kBlock, 0, stream>>>(pass);
    return cudaGetLastError();
  }
  return launch_tensor_core_pass(pass, plan, stream);
}

}  // namespace gpu
}  // namespace rbf

#define RBF_INSTANTIATE(T)                                                                               \
  template cudaError_t launch_matrix_free_rows<T>(const T*, std::size_t, int, int, int, const MatrixFreePlan&, \
                                                  T*, cudaStream_t);                                     \
  template cudaError_t launch_matrix_free_candidates<T>(const T*, const T*, int, int, const MatrixFreePlan&, \
                                                        T*, cudaStream_t);                               \
  template cudaError_t launch_sum_splits<T>(const T*, int, int, T*, cudaStream_t);                        \
  template MatrixFreeKernelShape matrix_free_cuda_core_shape<T>(int);                                   \
  template cudaError_t launch_matrix_free_pass<T>(const MatrixFreePass<T>&, const MatrixFreePlan&,        \
                                                  cudaStream_t);
namespace rbf {
namespace gpu {
RBF_INSTANTIATE(float)
RBF_INSTANTIATE(double)
}  // namespace gpu
}  // namespace rbf
#undef RBF_INSTANTIATE
