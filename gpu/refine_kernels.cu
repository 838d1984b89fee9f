// Elementwise kernels of the refinement engine: Gaussian activations from X C^T, the residual
// with its squared sum, the adjoint A = Phi .* (E W^T), the Jacobian block for
// Levenberg-Marquardt, and the chunk-to-double accumulation. The GEMMs are cuBLAS.
#include <algorithm>

#include "gpu/kernel_constants.hpp"
#include "gpu/reductions.cuh"
#include "gpu/refine_kernels.hpp"

namespace rbf {
namespace gpu {
namespace {

// Each block covers kBlock rows of kColumnsPerBlock node columns: the independent loads of
// one thread's columns are in flight together, and any node count fits the grid's y limit.
constexpr int kColumnsPerBlock = 8;
constexpr int kAccumulateBlocks = 1024;

// The fast intrinsic in float: H needs -log Phi to an absolute 1e-6 or so, which __logf gives
// (its error is about 2^-21 absolute on [0.5, 2] and 2 ulp relative elsewhere).
__device__ __forceinline__ float neg_log(float v) { return -__logf(v); }
__device__ __forceinline__ double neg_log(double v) { return -log(v); }

dim3 node_grid(int rows, int cols) {
  const int x = (rows + kBlock - 1) / kBlock;
  const int y = std::min((cols + kColumnsPerBlock - 1) / kColumnsPerBlock, kMaxGridY);
  return dim3(static_cast<unsigned>(x), static_cast<unsigned>(y));
}

// The operation order is the CPU engine's ((-2 S + xsq) + csq, clamp, exp(-(D gamma))); -2 S
// is exact, so a contraction into an FMA does not change the result.
template <typename T>
__global__ void __launch_bounds__(kBlock)
    gaussian_from_products_kernel(T* __restrict__ s, std::size_t lds, int rows, int cols, const T* __restrict__ xsq,
                                  const T* __restrict__ csq, const T* __restrict__ gamma) {
  const int i = blockIdx.x * kBlock + threadIdx.x;
  if (i >= rows) return;
  const T xi = xsq[i];
  for (int j0 = blockIdx.y * kColumnsPerBlock; j0 < cols; j0 += gridDim.y * kColumnsPerBlock) {
#pragma unroll
    for (int c = 0; c < kColumnsPerBlock; ++c) {
      const int j = j0 + c;
      if (j < cols) {
        T* p = s + i + static_cast<std::size_t>(j) * lds;
        const T d2 = max((T(-2) * *p + xi) + __ldg(csq + j), T(0));
        *p = gauss_exp(-(d2 * __ldg(gamma + j)));
      }
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kBlock)
    refine_residual_kernel(T* __restrict__ f, int rows, int k, const T* __restrict__ bias, const T* __restrict__ y,
                           std::size_t ldy, double* __restrict__ sse) {
  const long long total = static_cast<long long>(rows) * k;
  double sum = 0.0;
  for (long long idx = static_cast<long long>(blockIdx.x) * kBlock + threadIdx.x; idx < total;
       idx += static_cast<long long>(gridDim.x) * kBlock) {
    const int o = static_cast<int>(idx / rows);
    const int n = static_cast<int>(idx - static_cast<long long>(o) * rows);
    const T e = (f[idx] + __ldg(bias + o)) - y[n + static_cast<std::size_t>(o) * ldy];
    f[idx] = e;
    sum += static_cast<double>(e) * static_cast<double>(e);
  }
  sum = block_sum(sum);
  // Block b owns slot b, and chunks run one after another on one stream: no atomics needed.
  if (threadIdx.x == 0) sse[blockIdx.x] += sum;
}

// H = A .* (gamma D), with gamma D = -log Phi recomputed here instead of a stored D, is only
// ever summed over rows (dL/dlog_width = 2 H^T 1), so each block reduces its rows' H per column
// into hpart[block, column] and H itself is never written: that saves a write and a read of an
// N x nodes matrix per epoch in a memory-bound pass. -log Phi is accurate to a few ulps in
// absolute terms, which is all H needs; where Phi underflowed to 0, A is 0 and so is H.
// Each warp sums its 32 rows with shuffles (a block-wide reduction per column, with its two
// barriers, made this kernel twice as slow) and writes one partial per column: partial
// w = block * kWarps + warp of column j at hpart[j * parts + w]. Rows past the end add 0.
template <typename T>
__global__ void __launch_bounds__(kBlock)
    refine_adjoint_kernel(T* __restrict__ phi, std::size_t ld, int rows, int cols, const T* __restrict__ e, int k,
                          const T* __restrict__ w, double* __restrict__ hpart) {
  const int i = blockIdx.x * kBlock + threadIdx.x;
  const bool active = i < rows;
  const std::size_t parts = static_cast<std::size_t>(gridDim.x) * kWarps;
  const std::size_t part = static_cast<std::size_t>(blockIdx.x) * kWarps + (threadIdx.x >> 5);
  for (int j0 = blockIdx.y * kColumnsPerBlock; j0 < cols; j0 += gridDim.y * kColumnsPerBlock) {
    const int count = min(kColumnsPerBlock, cols - j0);  // the same for every lane of a warp
    // All of this thread's loads first, so that they are in flight together; then the
    // arithmetic and stores; then the column sums, as independent shuffle chains.
    T p[kColumnsPerBlock];
#pragma unroll
    for (int c = 0; c < kColumnsPerBlock; ++c)
      p[c] = active && c < count ? phi[i + static_cast<std::size_t>(j0 + c) * ld] : T(0);
    // Summed over the warp's 32 rows in T; partials are added in double afterwards.
    T hv[kColumnsPerBlock];
#pragma unroll
    for (int c = 0; c < kColumnsPerBlock; ++c) {
      hv[c] = T(0);
      if (active && c < count) {
        const int j = j0 + c;
        T ew = T(0);
        for (int o = 0; o < k; ++o)
          ew += e[i + static_cast<std::size_t>(o) * rows] * __ldg(w + j + static_cast<std::size_t>(o) * cols);
        const T a = ew * p[c];
        phi[i + static_cast<std::size_t>(j) * ld] = a;
        if (p[c] > T(0)) hv[c] = a * neg_log(p[c]);
      }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
#pragma unroll
      for (int c = 0; c < kColumnsPerBlock; ++c) hv[c] += __shfl_down_sync(0xffffffffu, hv[c], offset);
    if ((threadIdx.x & 31) == 0)
      for (int c = 0; c < count; ++c) hpart[static_cast<std::size_t>(j0 + c) * parts + part] = static_cast<double>(hv[c]);
  }
}

// out[j] = the sum of column j's `parts` partials (the adjoint's H^T 1): one warp per column,
// lane l adding partials l, l + 32, ... in order, then a fixed shuffle tree.
template <typename T>
__global__ void __launch_bounds__(kBlock)
    column_partials_kernel(const double* __restrict__ part, std::size_t parts, int cols, T* __restrict__ out) {
  const int j = (blockIdx.x * kBlock + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (j >= cols) return;  // the whole warp
  const double* column = part + static_cast<std::size_t>(j) * parts;
  double s = 0.0;
  for (std::size_t p = static_cast<std::size_t>(lane); p < parts; p += 32) s += column[p];
  for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_down_sync(0xffffffffu, s, offset);
  if (lane == 0) out[j] = static_cast<T>(s);
}

// One thread per Jacobian row (coalesced column-major writes), the block's y index walks the
// parameter columns. dr/dlog_width = W Phi 2 gamma D uses gamma D = -log Phi, as above.
template <typename T>
__global__ void __launch_bounds__(kBlock)
    refine_jacobian_kernel(T* __restrict__ jac, std::size_t ldj, int rows, int k, int nodes, int d,
                           const T* __restrict__ phi, std::size_t ldp, const T* __restrict__ x, std::size_t ldx,
                           const T* __restrict__ centers, const T* __restrict__ w, const T* __restrict__ gamma) {
  const long long row = static_cast<long long>(blockIdx.x) * kBlock + threadIdx.x;
  if (row >= static_cast<long long>(rows) * k) return;
  const int o = static_cast<int>(row / rows);
  const int n = static_cast<int>(row - static_cast<long long>(o) * rows);
  const int at_width = nodes * d, at_w = at_width + nodes, at_b = at_w + nodes * k;
  const int params = at_b + k;
  for (int p = blockIdx.y; p < params; p += gridDim.y) {
    T v;
    if (p < at_width) {
      const int j = p / d, l = p - j * d;
      const T base = phi[n + static_cast<std::size_t>(j) * ldp] * (T(2) * __ldg(gamma + j));
      const T s = __ldg(w + j + static_cast<std::size_t>(o) * nodes) * base;
      v = s * (x[n + static_cast<std::size_t>(l) * ldx] - __ldg(centers + j + static_cast<std::size_t>(l) * nodes));
    } else if (p < at_w) {
      const int j = p - at_width;
      const T ph = phi[n + static_cast<std::size_t>(j) * ldp];
      const T s = __ldg(w + j + static_cast<std::size_t>(o) * nodes) * (ph * T(2));
      v = ph > T(0) ? s * neg_log(ph) : T(0);
    } else if (p < at_b) {
      const int q = p - at_w, j = q / k;
      v = q - j * k == o ? phi[n + static_cast<std::size_t>(j) * ldp] : T(0);
    } else {
      v = p - at_b == o ? T(1) : T(0);
    }
    jac[row + static_cast<std::size_t>(p) * ldj] = v;
  }
}

template <typename T>
__global__ void __launch_bounds__(kBlock)
    accumulate_kernel(double* __restrict__ acc, const T* __restrict__ v, std::size_t count) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * kBlock + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * kBlock)
    acc[i] += static_cast<double>(v[i]);
}

}  // namespace

template <typename T>
cudaError_t launch_gaussian_from_products(T* s, std::size_t lds, int rows, int cols, const T* xsq, const T* csq,
                                          const T* gamma, cudaStream_t stream) {
  if (rows > 0 && cols > 0)
    gaussian_from_products_kernel<T><<<node_grid(rows, cols), kBlock, 0, stream>>>(s, lds, rows, cols, xsq, csq, gamma);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_refine_residual(T* f, int rows, int k, const T* bias, const T* y, std::size_t ldy, double* sse,
                                   cudaStream_t stream) {
  // Every block runs (even with no elements) so each adds its slot, zero or not.
  refine_residual_kernel<T><<<kRefineResidualBlocks, kBlock, 0, stream>>>(f, rows, k, bias, y, ldy, sse);
  return cudaGetLastError();
}

std::size_t refine_adjoint_partials(int rows, int cols) {
  const dim3 grid = node_grid(rows, cols);
  return static_cast<std::size_t>(grid.x) * kWarps * static_cast<std::size_t>(cols);
}

template <typename T>
cudaError_t launch_refine_adjoint(T* phi, std::size_t ld, int rows, int cols, const T* e, int k, const T* w,
                                  double* hpart, T* h_sums, cudaStream_t stream) {
  if (rows > 0 && cols > 0) {
    const dim3 grid = node_grid(rows, cols);
    refine_adjoint_kernel<T><<<grid, kBlock, 0, stream>>>(phi, ld, rows, cols, e, k, w, hpart);
    const cudaError_t launched = cudaGetLastError();
    if (launched != cudaSuccess) return launched;
    const int columns_per_block = kBlock / 32;
    column_partials_kernel<T>
        <<<static_cast<unsigned>((cols + columns_per_block - 1) / columns_per_block), kBlock, 0, stream>>>(
            hpart, static_cast<std::size_t>(grid.x) * kWarps, cols, h_sums);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_refine_jacobian(T* jac, std::size_t ldj, int rows, int k, int nodes, int d, const T* phi,
                                   std::size_t ldp, const T* x, std::size_t ldx, const T* centers, const T* w,
                                   const T* gamma, cudaStream_t stream) {
  const long long jac_rows = static_cast<long long>(rows) * k;
  const int params = nodes * (d + 1 + k) + k;
  if (jac_rows > 0 && params > 0) {
    const dim3 grid(static_cast<unsigned>((jac_rows + kBlock - 1) / kBlock),
                    static_cast<unsigned>(std::min(params, kMaxGridY)));
    refine_jacobian_kernel<T>
        <<<grid, kBlock, 0, stream>>>(jac, ldj, rows, k, nodes, d, phi, ldp, x, ldx, centers, w, gamma);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_accumulate(double* acc, const T* v, std::size_t count, cudaStream_t stream) {
  if (count > 0) {
    const std::size_t blocks = std::min<std::size_t>((count + kBlock - 1) / kBlock, kAccumulateBlocks);
    accumulate_kernel<T><<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(acc, v, count);
  }
  return cudaGetLastError();
}

#define RBF_INSTANTIATE_REFINE(T)                                                                                      \
  template cudaError_t launch_gaussian_from_products<T>(T*, std::size_t, int, int, const T*, const T*, const T*,       \
                                                        cudaStream_t);                                                 \
  template cudaError_t launch_refine_residual<T>(T*, int, int, const T*, const T*, std::size_t, double*,               \
                                                 cudaStream_t);                                                        \
  template cudaError_t launch_refine_adjoint<T>(T*, std::size_t, int, int, const T*, int, const T*, double*, T*,    \
                                                cudaStream_t);                                                         \
  template cudaError_t launch_refine_jacobian<T>(T*, std::size_t, int, int, int, int, const T*, std::size_t, const T*, \
                                                 std::size_t, const T*, const T*, const T*, cudaStream_t);             \
  template cudaError_t launch_accumulate<T>(double*, const T*, std::size_t, cudaStream_t);

RBF_INSTANTIATE_REFINE(float)
RBF_INSTANTIATE_REFINE(double)
#undef RBF_INSTANTIATE_REFINE

}  // namespace gpu
}  // namespace rbf
