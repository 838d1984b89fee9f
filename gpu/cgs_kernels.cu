// CGS2's kernels: the passes over Q that orthogonalize a new node's column (the first pass
// with the DGKS decision, the second projection's sums, the last pass) and lazy CGS2's close
// and settling, all with the fixed blocks and tiles of cgs_blocks and cgs_tile_vectors.
#include <initializer_list>

#include "gpu/cgs_kernels.hpp"
#include "gpu/cgs_register_tile.cuh"
#include "gpu/cgs_tiles.cuh"
#include "gpu/kernel_constants.hpp"
#include "gpu/reductions.cuh"

namespace rbf {
namespace gpu {
namespace {

// CGS's first pass over Q, one read: u = phi - Q h1 and, from the same tiles while they are in
// cache, each block's share of h2 = Q^T u (summed by cgs_reduce_kernel). The pass also sums
// ||u||^2 and ||phi||^2 and takes the DGKS decision on the device, so the last pass can skip
// its read of Q without a copy back. A fixed number of blocks (cgs_blocks) loops over the
// tiles (cgs_tile_vectors), so every sum has one order whatever the device, and a block's
// barriers and reductions are paid once per block, not once per tile.
template <int V, typename T>
__global__ void __launch_bounds__(kBlock)
    cgs_subtract_kernel(const T* __restrict__ q, std::size_t ldq, int cols, const T* __restrict__ h,
                        const T* __restrict__ phi, T* __restrict__ u, int padded_rows,
                        unsigned char* __restrict__ mark_used, double ratio2, ReduceScratch scratch,
                        double* __restrict__ results, T* __restrict__ partial, LazyCgs<T> lazy) {
  constexpr int kRows = CgsTile<V>::kRows;
  __shared__ __align__(16) T sums[kWarps][kRows];
  __shared__ __align__(16) T u_tile[kRows];
  if (mark_used != nullptr && blockIdx.x == 0 && threadIdx.x == 0) *mark_used = 1;
  const int tiles = (padded_rows + kRows - 1) / kRows;
  // A pending column (lazy CGS2) is finished here and read from registers, never through q:
  // the product and the projections cover the columns before it.
  const bool settle = lazy.pending != nullptr;
  const int read_cols = settle ? cols - 1 : cols;
  const T scale = settle ? static_cast<T>(1.0 / results[kNormU]) : T(0);
  const T h_last = settle ? h[cols - 1] : T(0);
  double su = 0.0, sp = 0.0, s_last = 0.0;
  double ue[kMaxFusedOutputs];
  for (int j = 0; j < kMaxFusedOutputs; ++j) ue[j] = 0.0;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int row0 = tile * kRows;
    T pi[CgsTile<V>::kRowsPerThread];  // loaded before the product's barrier, as in cgs_finish_kernel
    T qp[CgsTile<V>::kRowsPerThread];
#pragma unroll
    for (int part = 0; part < CgsTile<V>::kRowsPerThread; ++part) {
      const int r = static_cast<int>(threadIdx.x) + part * kBlock, i = row0 + r;
      const bool in = r < kRows && i < padded_rows;
      pi[part] = in ? phi[i] : T(0);
      qp[part] = in && settle ? lazy.pending[i] : T(0);
    }
    if (settle) {
      T qg[CgsTile<V>::kRowsPerThread];
      tile_times<V>(q, ldq, read_cols, lazy.g, row0, padded_rows, sums, qg);
#pragma unroll
      for (int part = 0; part < CgsTile<V>::kRowsPerThread; ++part) {
        const int r = static_cast<int>(threadIdx.x) + part * kBlock, i = row0 + r;
        if (r >= kRows || i >= padded_rows) continue;
        qp[part] = (qp[part] - qg[part]) * scale;
        lazy.pending[i] = qp[part];
      }
      __syncthreads();  // tile_times' sums are written again below
    }
    T qh[CgsTile<V>::kRowsPerThread];
    tile_times<V>(q, ldq, read_cols, h, row0, padded_rows, sums, qh);
#pragma unroll
    for (int part = 0; part < CgsTile<V>::kRowsPerThread; ++part) {
      const int r = static_cast<int>(threadIdx.x) + part * kBlock, i = row0 + r;
      if (r >= kRows) continue;
      T w = T(0);
      if (i < padded_rows) {
        const T p = pi[part];
        w = p - qh[part] - qp[part] * h_last;
        u[i] = w;
        su += static_cast<double>(w) * static_cast<double>(w);
        sp += static_cast<double>(p) * static_cast<double>(p);
        s_last += static_cast<double>(qp[part]) * static_cast<double>(w);
        if (lazy.e != nullptr) lazy_residual_row(lazy, i, qp[part], w, results, ue);
      }
      u_tile[r] = w;
    }
    __syncthreads();
    tile_project<V>(q, ldq, read_cols, u_tile, row0, padded_rows, tile == static_cast<int>(blockIdx.x), partial,
                    static_cast<int>(gridDim.x));
    __syncthreads();  // sums and u_tile are reused by the next tile
  }
  if (settle) {  // the finished column's share of h2, summed in double over the block
    const double s = block_sum(s_last);
    if (threadIdx.x == 0) partial[static_cast<std::size_t>(cols - 1) * gridDim.x + blockIdx.x] = static_cast<T>(s);
  }
  first_pass_decision(su, sp, ratio2, scratch, results, lazy.e != nullptr ? lazy.k : -1, ue);
}

// The same first pass with the tile in registers (cgs_register_tile.cuh): one read of Q, for
// float and up to CgsRegisterTile<V, kC>::kMaxColumns columns.
template <int V, int kC>
__global__ void __launch_bounds__(kBlock, CgsRegisterTile<V, kC>::kBlocksPerSm)
    cgs_subtract_registers_kernel(const float* __restrict__ q, std::size_t ldq, int cols, const float* __restrict__ h,
                                  const float* __restrict__ phi, float* __restrict__ u, int padded_rows,
                                  unsigned char* __restrict__ mark_used, double ratio2, ReduceScratch scratch,
                                  double* __restrict__ results, float* __restrict__ partial, LazyCgs<float> lazy) {
  if (mark_used != nullptr && blockIdx.x == 0 && threadIdx.x == 0) *mark_used = 1;
  double su = 0.0, sp = 0.0;
  double ue[kMaxFusedOutputs];
  for (int j = 0; j < kMaxFusedOutputs; ++j) ue[j] = 0.0;
  cgs_subtract_register_tiles<V, kC>(q, ldq, cols, h, phi, u, padded_rows, partial, lazy, results, su, sp, ue);
  first_pass_decision(su, sp, ratio2, scratch, results, lazy.e != nullptr ? lazy.k : -1, ue);
}

// h2[j] = the blocks' partials of column j (stored column by column), summed in a fixed order
// in double: lane l takes blocks l, l + 32, ..., then a shuffle tree. One warp per column;
// only when the first pass asked for a second projection.
template <typename T>
__global__ void __launch_bounds__(kBlock)
    cgs_reduce_kernel(const T* __restrict__ partial, int blocks, int cols, const double* __restrict__ results,
                      T* __restrict__ h2) {
  if (results[kReorthogonalize] == 0.0) return;
  const int lane = threadIdx.x & 31;
  const int j = blockIdx.x * kWarps + (threadIdx.x >> 5);
  if (j >= cols) return;
  const T* column = partial + static_cast<std::size_t>(j) * blocks;
  double s = 0.0;
#pragma unroll 4
  for (int b = lane; b < blocks; b += 32) s += static_cast<double>(column[b]);
  for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_xor_sync(0xffffffffu, s, offset);
  if (lane == 0) h2[j] = static_cast<T>(s);
}

// Lazy CGS2's close (launch_cgs_lazy_close): one warp per column sums h2 as cgs_reduce_kernel
// does; the last block then takes ||u - Q h2||^2 = ||u||^2 - ||h2||^2 (Q orthonormal, h2 =
// Q^T u), the dependence test, a and h.
template <typename T>
__global__ void __launch_bounds__(kBlock)
    cgs_lazy_close_kernel(const T* __restrict__ partial, int blocks, int cols, const T* __restrict__ h1,
                          T* __restrict__ h2, int k, double tol, ReduceScratch scratch,
                          double* __restrict__ results, int h_offset) {
  const int lane = threadIdx.x & 31;
  const int j = blockIdx.x * kWarps + (threadIdx.x >> 5);
  if (j < cols) {
    const T* column = partial + static_cast<std::size_t>(j) * blocks;
    double s = 0.0;
#pragma unroll 4
    for (int b = lane; b < blocks; b += 32) s += static_cast<double>(column[b]);
    for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_xor_sync(0xffffffffu, s, offset);
    if (lane == 0) {
      h2[j] = static_cast<T>(s);
      __threadfence();  // published before this block's ticket
    }
  }
  __syncthreads();
  if (!last_block_done(scratch.tickets + 5)) return;
  double n2 = 0.0;
  for (int c = threadIdx.x; c < cols; c += kBlock) {
    const double v = static_cast<double>(load_coherent(h2 + c));
    n2 += v * v;
  }
  n2 = block_sum(n2);
  if (threadIdx.x == 0) {
    const double nu2 = results[kNormU2] - n2;
    const double nu = sqrt(fmax(nu2, 0.0));
    results[kNormU] = nu;
    results[kNormU2] = nu2;
    results[kDependent] = (nu2 > tol * results[kNormPhi2]) ? 0.0 : 1.0;  // NaN counts as dependent
    for (int c = 0; c < k; ++c) results[kResultA + c] /= nu;
    scratch.tickets[5] = 0;
  }
  for (int c = threadIdx.x; c < cols; c += kBlock)
    results[h_offset + c] = static_cast<double>(h1[c] + load_coherent(h2 + c));
}

// Finishes a pending column alone (launch_cgs_settle), over CGS's fixed blocks and tiles.
template <int V, typename T>
__global__ void __launch_bounds__(kBlock)
    cgs_settle_kernel(const T* __restrict__ q, std::size_t ldq, int cols, const T* __restrict__ g,
                      T* __restrict__ column, int padded_rows, T* __restrict__ e, std::size_t lde, int k,
                      ReduceScratch scratch, double* __restrict__ results) {
  constexpr int kRows = CgsTile<V>::kRows;
  __shared__ __align__(16) T sums[kWarps][kRows];
  const int tiles = (padded_rows + kRows - 1) / kRows;
  const T scale = static_cast<T>(1.0 / results[kNormU]);
  double se = 0.0;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int row0 = tile * kRows;
    T ui[CgsTile<V>::kRowsPerThread];
    load_tile_rows<V>(column, row0, padded_rows, ui);
    T qg[CgsTile<V>::kRowsPerThread];
    tile_times<V>(q, ldq, cols, g, row0, padded_rows, sums, qg);
#pragma unroll
    for (int part = 0; part < CgsTile<V>::kRowsPerThread; ++part) {
      const int r = static_cast<int>(threadIdx.x) + part * kBlock, i = row0 + r;
      if (r >= kRows || i >= padded_rows) continue;
      const T qi = (ui[part] - qg[part]) * scale;
      column[i] = qi;
      for (int j = 0; j < k; ++j) {
        T* p = e + i + static_cast<std::size_t>(j) * lde;
        const T v = *p - qi * static_cast<T>(results[kResultA + j]);
        *p = v;
        se += static_cast<double>(v) * static_cast<double>(v);
      }
    }
    __syncthreads();  // tile_times' sums are reused by the next tile
  }
  se = block_sum(se);
  if (threadIdx.x == 0) scratch.values[blockIdx.x] = se;
  if (!last_block_done(scratch.tickets + 1)) return;
  const double total = combine_sums(scratch.values, gridDim.x);
  if (threadIdx.x == 0) {
    results[kResidualNorm2] = total;
    scratch.tickets[1] = 0;
  }
}

// CGS's last pass: u -= Q h2 when the first pass asked for it, ||u||^2 and (fused) u^T E,
// over the same fixed blocks and tiles as the first pass.
template <int V, typename T>
__global__ void __launch_bounds__(kBlock)
    cgs_finish_kernel(const T* __restrict__ q, std::size_t ldq, int cols, const T* __restrict__ h1,
                      const T* __restrict__ h2, T* __restrict__ u, int padded_rows, const T* __restrict__ e,
                      std::size_t lde, int k, double tol, ReduceScratch scratch,
                      double* __restrict__ results, int h_offset) {
  constexpr int kRows = CgsTile<V>::kRows;
  __shared__ __align__(16) T sums[kWarps][kRows];
  const int fused = e != nullptr ? k : 0;
  const int tiles = (padded_rows + kRows - 1) / kRows;
  // The same value in every thread, so the branch (and tile_times' barrier) is block-uniform.
  const bool again = results[kReorthogonalize] != 0.0;
  double su = 0.0;
  double ue[kMaxFusedOutputs];
  for (int j = 0; j < kMaxFusedOutputs; ++j) ue[j] = 0.0;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int row0 = tile * kRows;
    // u is loaded before the tile's product, whose barrier would otherwise keep its load from
    // overlapping the loads of Q (one memory latency per tile instead of two).
    T ui[CgsTile<V>::kRowsPerThread];
    load_tile_rows<V>(u, row0, padded_rows, ui);
    T qh[CgsTile<V>::kRowsPerThread];
    for (int part = 0; part < CgsTile<V>::kRowsPerThread; ++part) qh[part] = T(0);
    if (again) tile_times<V>(q, ldq, cols, h2, row0, padded_rows, sums, qh);
#pragma unroll
    for (int part = 0; part < CgsTile<V>::kRowsPerThread; ++part) {
      const int r = static_cast<int>(threadIdx.x) + part * kBlock, i = row0 + r;
      if (r >= kRows || i >= padded_rows) continue;
      const T w = ui[part] - qh[part];
      if (again) u[i] = w;
      const double v = static_cast<double>(w);
      su += v * v;
      for (int j = 0; j < fused; ++j) ue[j] += v * static_cast<double>(e[i + static_cast<std::size_t>(j) * lde]);
    }
    if (again) __syncthreads();  // tile_times' sums are reused by the next tile
  }
  // Slots: 0 = ||u||^2, 1 + j = u^T e_j; each gridDim.x wide.
  const int blocks = gridDim.x;
  su = block_sum(su);
  if (threadIdx.x == 0) scratch.values[blockIdx.x] = su;
  for (int j = 0; j < fused; ++j) {
    const double s = block_sum(ue[j]);
    if (threadIdx.x == 0) scratch.values[(1 + j) * blocks + blockIdx.x] = s;
  }
  if (!last_block_done(scratch.tickets + 2)) return;
  const double nu2 = combine_sums(scratch.values, blocks);
  const double np2 = results[kNormPhi2];
  const double nu = sqrt(nu2);
  for (int j = 0; j < fused; ++j) {
    const double s = combine_sums(scratch.values + (1 + j) * blocks, blocks);
    if (threadIdx.x == 0) results[kResultA + j] = s / nu;
  }
  if (threadIdx.x == 0) {
    results[kNormU] = nu;
    results[kNormU2] = nu2;
    results[kDependent] = (nu2 > tol * np2) ? 0.0 : 1.0;  // NaN counts as dependent
    scratch.tickets[2] = 0;
  }
  for (int j = threadIdx.x; j < cols; j += kBlock)
    results[h_offset + j] = static_cast<double>(again ? h1[j] + h2[j] : h1[j]);
}

}  // namespace

// Below this many columns the column-split pass is faster: its re-read of a tile of a few
// columns comes from cache, while the register tiles pay a fixed cost per tile (a 32-column
// transposing sum, two barriers) that a small basis does not repay. On an H100 at 200,000 rows
// the first CGS call took 0.05 ms with the column-split pass against 0.07 ms; from about 50
// columns on both take the same time, and with hundreds the register tiles are faster
// (docs/BENCHMARKS.md).
constexpr int kCgsRegisterMinColumns = 64;

// Launches the register-tile first pass where it applies (float, 64 to 512 columns, rows a
// multiple of 64; the 128-row tile where they divide); false otherwise.
template <typename T>
bool launch_cgs_subtract_registers(const T*, std::size_t, int, const T*, const T*, T*, int, unsigned char*, double,
                                   const ReduceScratch&, double*, T*, cudaStream_t, const LazyCgs<T>&) {
  return false;
}
template <>
bool launch_cgs_subtract_registers<float>(const float* q, std::size_t ldq, int cols, const float* h,
                                          const float* phi, float* u, int padded_rows, unsigned char* mark_used,
                                          double ratio2, const ReduceScratch& scratch, double* results,
                                          float* partial, cudaStream_t stream, const LazyCgs<float>& lazy) {
  if (padded_rows % 64 != 0) return false;  // backends pad to kRowPadding; other callers may not
  if (cols < kCgsRegisterMinColumns) return false;
  const int blocks = cgs_blocks(padded_rows);
  if (cols <= CgsRegisterTile<4, 16>::kMaxColumns && padded_rows % 128 == 0)
    cgs_subtract_registers_kernel<4, 16><<<blocks, kBlock, 0, stream>>>(
        q, ldq, cols, h, phi, u, padded_rows, mark_used, ratio2, scratch, results, partial, lazy);
  else if (cols <= CgsRegisterTile<2, 32>::kMaxColumns)
    cgs_subtract_registers_kernel<2, 32><<<blocks, kBlock, 0, stream>>>(
        q, ldq, cols, h, phi, u, padded_rows, mark_used, ratio2, scratch, results, partial, lazy);
  else if (cols <= CgsRegisterTile<2, 64>::kMaxColumns)
    cgs_subtract_registers_kernel<2, 64><<<blocks, kBlock, 0, stream>>>(
        q, ldq, cols, h, phi, u, padded_rows, mark_used, ratio2, scratch, results, partial, lazy);
  else
    return false;
  return true;
}

template <typename T>
cudaError_t launch_cgs_subtract(const T* q, std::size_t ldq, int cols, const T* h, const T* phi,
                                T* u, int padded_rows, unsigned char* mark_used, double ratio2,
                                const ReduceScratch& scratch, double* results, T* partial,
                                cudaStream_t stream, const LazyCgs<T>& lazy) {
  if (padded_rows % 4 != 0 || ldq % 4 != 0 || cols <= 0) return cudaErrorInvalidValue;
  if (lazy.e != nullptr && (lazy.k < 0 || lazy.k > kMaxFusedOutputs)) return cudaErrorInvalidValue;
  if (lazy.pending != nullptr && (cols < 2 || lazy.g == nullptr)) return cudaErrorInvalidValue;
  if (launch_cgs_subtract_registers(q, ldq, cols, h, phi, u, padded_rows, mark_used, ratio2, scratch, results,
                                    partial, stream, lazy))
    return cudaGetLastError();
  auto kernel = cgs_tile_vectors(padded_rows) == 4 ? cgs_subtract_kernel<4, T> : cgs_subtract_kernel<1, T>;
  kernel<<<cgs_blocks(padded_rows), kBlock, 0, stream>>>(q, ldq, cols, h, phi, u, padded_rows, mark_used, ratio2,
                                                         scratch, results, partial, lazy);
  return cudaGetLastError();
}

static cudaError_t preload_cgs_register_kernels(double) { return cudaSuccess; }  // float only
static cudaError_t preload_cgs_register_kernels(float) {
  cudaFuncAttributes a;
  for (cudaError_t e : {cudaFuncGetAttributes(&a, cgs_subtract_registers_kernel<4, 16>),
                        cudaFuncGetAttributes(&a, cgs_subtract_registers_kernel<2, 32>),
                        cudaFuncGetAttributes(&a, cgs_subtract_registers_kernel<2, 64>)})
    if (e != cudaSuccess) return e;
  return cudaSuccess;
}

template <typename T>
cudaError_t preload_cgs_kernels() {
  cudaFuncAttributes a;
  for (cudaError_t e : {cudaFuncGetAttributes(&a, cgs_subtract_kernel<1, T>), cudaFuncGetAttributes(&a, cgs_subtract_kernel<4, T>),
                        cudaFuncGetAttributes(&a, cgs_lazy_close_kernel<T>), cudaFuncGetAttributes(&a, cgs_reduce_kernel<T>),
                        cudaFuncGetAttributes(&a, cgs_finish_kernel<1, T>), cudaFuncGetAttributes(&a, cgs_finish_kernel<4, T>)})
    if (e != cudaSuccess) return e;
  return preload_cgs_register_kernels(T{});
}

template <typename T>
cudaError_t launch_cgs_lazy_close(const T* partial, int padded_rows, int cols, const T* h1, T* h2, int k,
                                  double tol, const ReduceScratch& scratch, double* results, int h_offset,
                                  cudaStream_t stream) {
  if (cols <= 0 || k < 0 || k > kMaxFusedOutputs) return cudaErrorInvalidValue;
  cgs_lazy_close_kernel<T><<<(cols + kWarps - 1) / kWarps, kBlock, 0, stream>>>(
      partial, cgs_blocks(padded_rows), cols, h1, h2, k, tol, scratch, results, h_offset);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_cgs_settle(const T* q, std::size_t ldq, int cols, const T* g, T* column, int padded_rows,
                              T* e, std::size_t lde, int k, const ReduceScratch& scratch, double* results,
                              cudaStream_t stream) {
  if (padded_rows % 4 != 0 || ldq % 4 != 0 || cols <= 0) return cudaErrorInvalidValue;
  auto kernel = cgs_tile_vectors(padded_rows) == 4 ? cgs_settle_kernel<4, T> : cgs_settle_kernel<1, T>;
  kernel<<<cgs_blocks(padded_rows), kBlock, 0, stream>>>(q, ldq, cols, g, column, padded_rows, e, lde, k, scratch,
                                                         results);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_cgs_reduce(const T* partial, int padded_rows, int cols, const double* results, T* h2,
                              cudaStream_t stream) {
  if (cols <= 0) return cudaErrorInvalidValue;
  cgs_reduce_kernel<T><<<(cols + kWarps - 1) / kWarps, kBlock, 0, stream>>>(partial, cgs_blocks(padded_rows), cols,
                                                                           results, h2);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_cgs_finish(const T* q, std::size_t ldq, int cols, const T* h1, const T* h2,
                              T* u, int padded_rows, const T* e, std::size_t lde, int k,
                              double tol, const ReduceScratch& scratch, double* results,
                              int h_offset, cudaStream_t stream) {
  if (e != nullptr && k > kMaxFusedOutputs) return cudaErrorInvalidValue;
  if (padded_rows % 4 != 0 || ldq % 4 != 0) return cudaErrorInvalidValue;
  auto kernel = cgs_tile_vectors(padded_rows) == 4 ? cgs_finish_kernel<4, T> : cgs_finish_kernel<1, T>;
  kernel<<<cgs_blocks(padded_rows), kBlock, 0, stream>>>(q, ldq, cols, h1, h2, u, padded_rows, e, lde, k, tol,
                                                         scratch, results, h_offset);
  return cudaGetLastError();
}

#define RBF_INSTANTIATE(T)                                                                     \
  template cudaError_t launch_cgs_subtract<T>(const T*, std::size_t, int, const T*, const T*, T*, \
                                              int, unsigned char*, double, const ReduceScratch&, \
                                              double*, T*, cudaStream_t, const LazyCgs<T>&);     \
  template cudaError_t preload_cgs_kernels<T>();                                                  \
  template cudaError_t launch_cgs_lazy_close<T>(const T*, int, int, const T*, T*, int, double,   \
                                                const ReduceScratch&, double*, int, cudaStream_t); \
  template cudaError_t launch_cgs_settle<T>(const T*, std::size_t, int, const T*, T*, int, T*,   \
                                            std::size_t, int, const ReduceScratch&, double*,    \
                                            cudaStream_t);                                      \
  template cudaError_t launch_cgs_reduce<T>(const T*, int, int, const double*, T*, cudaStream_t);     \
  template cudaError_t launch_cgs_finish<T>(const T*, std::size_t, int, const T*, const T*, T*,  \
                                            int, const T*, std::size_t, int, double,            \
                                            const ReduceScratch&, double*, int, cudaStream_t);
RBF_INSTANTIATE(float)
RBF_INSTANTIATE(double)
#undef RBF_INSTANTIATE

}  // namespace gpu
}  // namespace rbf
