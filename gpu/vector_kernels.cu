// Row-wise kernels of the CUDA backend: the bias column, the residual update with
// ||E||^2, CGS's passes (with the DGKS decision), normalization, and Gaussian activations of
// (sample, center) pairs.
#include <algorithm>
#include <climits>

#include "gpu/kernels.hpp"
#include "gpu/reductions.cuh"

namespace rbf {
namespace gpu {
namespace {

template <typename T>
__global__ void fill_prefix_kernel(T* __restrict__ v, int padded_rows, int rows, T value) {
  const int i = blockIdx.x * kBlock + threadIdx.x;
  if (i < padded_rows) v[i] = i < rows ? value : T(0);
}

template <typename T>
__global__ void __launch_bounds__(kBlock)
    residual_update_kernel(T* __restrict__ e, std::size_t lde, int padded_rows, int k,
                           const T* __restrict__ q, const T* __restrict__ a, ReduceScratch scratch,
                           double* __restrict__ results) {
  double sum = 0.0;
  for (int i = blockIdx.x * kBlock + threadIdx.x; i < padded_rows; i += gridDim.x * kBlock) {
    const T qi = q[i];
    for (int j = 0; j < k; ++j) {
      T* p = e + i + static_cast<std::size_t>(j) * lde;
      const T v = *p - qi * a[j];
      *p = v;
      sum += static_cast<double>(v) * static_cast<double>(v);
    }
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) scratch.values[blockIdx.x] = sum;
  if (!last_block_done(scratch.tickets + 1)) return;
  const double total = combine_sums(scratch.values, gridDim.x);
  if (threadIdx.x == 0) {
    results[kResidualNorm2] = total;
    scratch.tickets[1] = 0;
  }
  for (int j = threadIdx.x; j < k; j += kBlock) results[kResultA + j] = static_cast<double>(a[j]);
}

// (Q h)_i for the kCgsRows rows of this block: the block's warps split the columns (warp w
// sums columns w, w + kWarps, ... in ascending order, four loads in flight), lanes are rows,
// then warp 0 adds the warps' sums in order. Many small blocks keep enough loads in flight
// for any row count. The result is valid in warp 0.
template <typename T>
__device__ __forceinline__ T rows_times(const T* __restrict__ q, std::size_t ldq, int cols,
                                        const T* __restrict__ h, int i) {
  __shared__ T warp_sums[kWarps][32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  T acc = T(0);
  int j = warp;
  for (; j + 3 * kWarps < cols; j += 4 * kWarps) {
    const T q0 = q[i + static_cast<std::size_t>(j) * ldq];
    const T q1 = q[i + static_cast<std::size_t>(j + kWarps) * ldq];
    const T q2 = q[i + static_cast<std::size_t>(j + 2 * kWarps) * ldq];
    const T q3 = q[i + static_cast<std::size_t>(j + 3 * kWarps) * ldq];
    acc = fma(q0, __ldg(h + j), acc);
    acc = fma(q1, __ldg(h + j + kWarps), acc);
    acc = fma(q2, __ldg(h + j + 2 * kWarps), acc);
    acc = fma(q3, __ldg(h + j + 3 * kWarps), acc);
  }
  for (; j < cols; j += kWarps) acc = fma(q[i + static_cast<std::size_t>(j) * ldq], __ldg(h + j), acc);
  warp_sums[warp][lane] = acc;
  __syncthreads();
  T total = T(0);
  if (warp == 0)
    for (int w = 0; w < kWarps; ++w) total += warp_sums[w][lane];
  return total;
}

// The first pass also sums ||u||^2 and ||phi||^2 and takes the DGKS decision on the device,
// so the second projection and the last pass can skip their reads of Q without a copy back.
template <typename T>
__global__ void __launch_bounds__(kBlock)
    cgs_subtract_kernel(const T* __restrict__ q, std::size_t ldq, int cols, const T* __restrict__ h,
                        const T* __restrict__ phi, T* __restrict__ u, unsigned char* __restrict__ mark_used,
                        double ratio2, ReduceScratch scratch, double* __restrict__ results) {
  if (mark_used != nullptr && blockIdx.x == 0 && threadIdx.x == 0) *mark_used = 1;
  const int i = blockIdx.x * kCgsRows + (threadIdx.x & 31);
  const T qh = rows_times(q, ldq, cols, h, i);
  double su = 0.0, sp = 0.0;
  if (threadIdx.x < 32) {
    const T p = phi[i];
    const T w = p - qh;
    u[i] = w;
    su = static_cast<double>(w) * static_cast<double>(w);
    sp = static_cast<double>(p) * static_cast<double>(p);
  }
  // Slots: 0 = ||u||^2, 1 = ||phi||^2; each gridDim.x wide.
  const int blocks = gridDim.x;
  su = block_sum(su);
  sp = block_sum(sp);
  if (threadIdx.x == 0) {
    scratch.values[blockIdx.x] = su;
    scratch.values[blocks + blockIdx.x] = sp;
  }
  if (!last_block_done(scratch.tickets + 3)) return;
  const double nu2 = combine_sums(scratch.values, blocks);
  const double np2 = combine_sums(scratch.values + blocks, blocks);
  if (threadIdx.x == 0) {
    results[kNormPhi] = sqrt(np2);
    results[kNormPhi2] = np2;
    // As model::needs_reorthogonalization: a NaN norm projects again, never skips.
    results[kReorthogonalize] = (nu2 >= ratio2 * np2) ? 0.0 : 1.0;
    scratch.tickets[3] = 0;
  }
}

// One tile per loop trip: kCgsProjectCols columns x one chunk of kCgsProjectRows rows, with
// 16-byte loads (columns start 16-byte aligned, chunks end on kRowPadding multiples). Warp w
// of the group's last tile to finish sums column w's chunk partials, lanes striding the
// chunks, then a fixed shuffle order: the same sums on every run and device.
template <typename T>
__global__ void __launch_bounds__(kBlock)
    cgs_project_kernel(const T* __restrict__ q, std::size_t ldq, int cols, const T* __restrict__ u,
                       int padded_rows, int splits, int groups, const double* __restrict__ results,
                       T* __restrict__ partial, unsigned int* __restrict__ tickets, T* __restrict__ h2) {
  static_assert(kCgsProjectCols == kWarps, "one warp combines each column of a group");
  if (results[kReorthogonalize] == 0.0) return;
  using V = typename Vec16<T>::type;
  constexpr int kChunk = kCgsProjectRows / Vec16<T>::width;  // vectors per row chunk
  __shared__ T sums[kWarps][kCgsProjectCols];
  __shared__ bool last;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int vecs = padded_rows / Vec16<T>::width;
  const V* uv = reinterpret_cast<const V*>(u);
  for (int tile = blockIdx.x; tile < groups * splits; tile += gridDim.x) {
    const int group = tile / splits, split = tile % splits;
    const int col0 = group * kCgsProjectCols;
    const V* columns[kCgsProjectCols];
    bool active[kCgsProjectCols];
#pragma unroll
    for (int j = 0; j < kCgsProjectCols; ++j) {
      active[j] = col0 + j < cols;
      columns[j] = reinterpret_cast<const V*>(q + static_cast<std::size_t>(active[j] ? col0 + j : 0) * ldq);
    }
    T acc[kCgsProjectCols];
#pragma unroll
    for (int j = 0; j < kCgsProjectCols; ++j) acc[j] = T(0);
    const int v_end = min(vecs, (split + 1) * kChunk);
    for (int v = split * kChunk + threadIdx.x; v < v_end; v += kBlock) {
      const V uu = __ldg(uv + v);
#pragma unroll
      for (int j = 0; j < kCgsProjectCols; ++j)
        if (active[j]) acc[j] = dot_acc(columns[j][v], uu, acc[j]);
    }
    __syncthreads();  // the previous tile is done with sums and last
#pragma unroll
    for (int j = 0; j < kCgsProjectCols; ++j) {
      T s = acc[j];
      for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_down_sync(0xffffffffu, s, offset);
      if (lane == 0) sums[warp][j] = s;
    }
    __syncthreads();
    if (threadIdx.x < kCgsProjectCols && col0 + static_cast<int>(threadIdx.x) < cols) {
      T s = T(0);
      for (int w = 0; w < kWarps; ++w) s += sums[w][threadIdx.x];
      partial[static_cast<std::size_t>(split) * cols + col0 + threadIdx.x] = s;
      __threadfence();  // published before the ticket below counts this tile
    }
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(tickets + group, 1u) == static_cast<unsigned int>(splits - 1);
    __syncthreads();
    if (!last) continue;
    const int col = col0 + warp;
    if (col < cols) {
      double s = 0.0;
      for (int p = lane; p < splits; p += 32)
        s += static_cast<double>(load_coherent(partial + static_cast<std::size_t>(p) * cols + col));
      for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_down_sync(0xffffffffu, s, offset);
      if (lane == 0) h2[col] = static_cast<T>(s);
    }
    if (threadIdx.x == 0) tickets[group] = 0;
  }
}

template <typename T>
__global__ void __launch_bounds__(kBlock)
    cgs_finish_kernel(const T* __restrict__ q, std::size_t ldq, int cols, const T* __restrict__ h1,
                      const T* __restrict__ h2, T* __restrict__ u, const T* __restrict__ e,
                      std::size_t lde, int k, double tol, ReduceScratch scratch,
                      double* __restrict__ results, int h_offset) {
  const int fused = e != nullptr ? k : 0;
  const int i = blockIdx.x * kCgsRows + (threadIdx.x & 31);
  // The same value in every thread, so the branch (and rows_times' barrier) is block-uniform.
  const bool again = results[kReorthogonalize] != 0.0;
  const T qh = again ? rows_times(q, ldq, cols, h2, i) : T(0);
  double su = 0.0, v = 0.0;
  if (threadIdx.x < 32) {
    const T w = u[i] - qh;
    if (again) u[i] = w;
    v = static_cast<double>(w);
    su = v * v;
  }
  // Slots: 0 = ||u||^2, 1 + j = u^T e_j; each gridDim.x wide.
  const int blocks = gridDim.x;
  su = block_sum(su);
  if (threadIdx.x == 0) scratch.values[blockIdx.x] = su;
  for (int j = 0; j < fused; ++j) {
    double ue = threadIdx.x < 32 ? v * static_cast<double>(e[i + static_cast<std::size_t>(j) * lde]) : 0.0;
    ue = block_sum(ue);
    if (threadIdx.x == 0) scratch.values[(1 + j) * blocks + blockIdx.x] = ue;
  }
  if (!last_block_done(scratch.tickets + 2)) return;
  const double nu2 = combine_sums(scratch.values, blocks);
  const double np2 = results[kNormPhi2];
  const double nu = sqrt(nu2);
  for (int j = 0; j < fused; ++j) {
    const double ue = combine_sums(scratch.values + (1 + j) * blocks, blocks);
    if (threadIdx.x == 0) results[kResultA + j] = ue / nu;
  }
  if (threadIdx.x == 0) {
    results[kNormU] = nu;
    results[kDependent] = (nu2 > tol * np2) ? 0.0 : 1.0;  // NaN counts as dependent
    scratch.tickets[2] = 0;
  }
  for (int j = threadIdx.x; j < cols; j += kBlock)
    results[h_offset + j] = static_cast<double>(again ? h1[j] + h2[j] : h1[j]);
}

template <typename T>
__global__ void normalize_kernel(T* __restrict__ u, int padded_rows, const double* __restrict__ results) {
  if (results[kDependent] != 0.0) return;
  const T norm = static_cast<T>(results[kNormU]);
  for (int i = blockIdx.x * kBlock + threadIdx.x; i < padded_rows; i += gridDim.x * kBlock)
    u[i] = u[i] / norm;
}

template <typename T>
__global__ void gaussian_pairs_kernel(const T* __restrict__ x, const T* __restrict__ centers,
                                      const T* __restrict__ gamma, int count, int d,
                                      T* __restrict__ out) {
  const int i = blockIdx.x * kBlock + threadIdx.x;
  if (i >= count) return;
  const T* xi = x + static_cast<std::size_t>(i) * d;
  const T* ci = centers + static_cast<std::size_t>(i) * d;
  T s = T(0);
  for (int k = 0; k < d; ++k) {
    const T diff = xi[k] - ci[k];
    s = fma(diff, diff, s);
  }
  out[i] = gauss_exp(-s * gamma[i]);
}

int blocks_for(std::size_t n) { return static_cast<int>((n + kBlock - 1) / kBlock); }
int reduce_blocks(int padded_rows) {
  return std::max(1, std::min(kReduceBlocks, blocks_for(static_cast<std::size_t>(padded_rows) / 4 + 1)));
}

}  // namespace

template <typename T>
cudaError_t launch_fill_prefix(T* v, int padded_rows, int rows, T value, cudaStream_t stream) {
  if (padded_rows <= 0) return cudaSuccess;
  fill_prefix_kernel<T><<<blocks_for(padded_rows), kBlock, 0, stream>>>(v, padded_rows, rows, value);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_residual_update(T* e, std::size_t lde, int padded_rows, int k, const T* q,
                                   const T* a, const ReduceScratch& scratch, double* results,
                                   cudaStream_t stream) {
  residual_update_kernel<T><<<reduce_blocks(padded_rows), kBlock, 0, stream>>>(
      e, lde, padded_rows, k, q, a, scratch, results);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_cgs_subtract(const T* q, std::size_t ldq, int cols, const T* h, const T* phi,
                                T* u, int padded_rows, unsigned char* mark_used, double ratio2,
                                const ReduceScratch& scratch, double* results,
                                cudaStream_t stream) {
  cgs_subtract_kernel<T><<<padded_rows / kCgsRows, kBlock, 0, stream>>>(
      q, ldq, cols, h, phi, u, mark_used, ratio2, scratch, results);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_cgs_project(const T* q, std::size_t ldq, int cols, const T* u, int padded_rows,
                               const double* results, T* partial, unsigned int* tickets, T* h2,
                               cudaStream_t stream) {
  if (padded_rows % kRowPadding != 0 || ldq % kRowPadding != 0) return cudaErrorInvalidValue;
  const int splits = cgs_project_splits(padded_rows), groups = cgs_project_groups(cols);
  const long long tiles = static_cast<long long>(splits) * groups;
  if (tiles > INT_MAX) return cudaErrorInvalidValue;
  const int blocks = static_cast<int>(std::max(1LL, std::min<long long>(kCgsProjectBlocks, tiles)));
  cgs_project_kernel<T><<<blocks, kBlock, 0, stream>>>(q, ldq, cols, u, padded_rows, splits, groups,
                                                       results, partial, tickets, h2);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_cgs_finish(const T* q, std::size_t ldq, int cols, const T* h1, const T* h2,
                              T* u, int padded_rows, const T* e, std::size_t lde, int k,
                              double tol, const ReduceScratch& scratch, double* results,
                              int h_offset, cudaStream_t stream) {
  if (e != nullptr && k > kMaxFusedOutputs) return cudaErrorInvalidValue;
  cgs_finish_kernel<T><<<padded_rows / kCgsRows, kBlock, 0, stream>>>(
      q, ldq, cols, h1, h2, u, e, lde, k, tol, scratch, results, h_offset);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_normalize(T* u, int padded_rows, const double* results, cudaStream_t stream) {
  normalize_kernel<T><<<reduce_blocks(padded_rows), kBlock, 0, stream>>>(u, padded_rows, results);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_gaussian_pairs(const T* x, const T* centers, const T* gamma, int count, int d,
                                  T* out, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  gaussian_pairs_kernel<T><<<blocks_for(count), kBlock, 0, stream>>>(x, centers, gamma, count, d, out);
  return cudaGetLastError();
}

#define RBF_INSTANTIATE(T)                                                                     \
  template cudaError_t launch_fill_prefix<T>(T*, int, int, T, cudaStream_t);                   \
  template cudaError_t launch_residual_update<T>(T*, std::size_t, int, int, const T*, const T*, \
                                                 const ReduceScratch&, double*, cudaStream_t); \
  template cudaError_t launch_cgs_subtract<T>(const T*, std::size_t, int, const T*, const T*, T*, \
                                              int, unsigned char*, double, const ReduceScratch&, \
                                              double*, cudaStream_t);                            \
  template cudaError_t launch_cgs_project<T>(const T*, std::size_t, int, const T*, int,         \
                                             const double*, T*, unsigned int*, T*, cudaStream_t); \
  template cudaError_t launch_cgs_finish<T>(const T*, std::size_t, int, const T*, const T*, T*,  \
                                            int, const T*, std::size_t, int, double,            \
                                            const ReduceScratch&, double*, int, cudaStream_t);  \
  template cudaError_t launch_normalize<T>(T*, int, const double*, cudaStream_t);              \
  template cudaError_t launch_gaussian_pairs<T>(const T*, const T*, const T*, int, int, T*,    \
                                                cudaStream_t);
RBF_INSTANTIATE(float)
RBF_INSTANTIATE(double)
#undef RBF_INSTANTIATE

}  // namespace gpu
}  // namespace rbf
