// Row-wise kernels of the CUDA backend: the bias column, the residual update with
// ||E||^2, CGS's passes (with the DGKS decision), normalization, and Gaussian activations of
// (sample, center) pairs.
#include <algorithm>
#include <climits>

#include "gpu/cgs_register_tile.cuh"
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

template <typename T, typename A>
__global__ void __launch_bounds__(kBlock)
    residual_update_kernel(T* __restrict__ e, std::size_t lde, int padded_rows, int k,
                           const T* __restrict__ q, const A* a, ReduceScratch scratch,
                           double* __restrict__ results) {
  double sum = 0.0;
  for (int i = blockIdx.x * kBlock + threadIdx.x; i < padded_rows; i += gridDim.x * kBlock) {
    const T qi = q[i];
    for (int j = 0; j < k; ++j) {
      T* p = e + i + static_cast<std::size_t>(j) * lde;
      const T v = *p - qi * static_cast<T>(a[j]);
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

template <typename T>
__global__ void __launch_bounds__(kBlock)
    validation_sums_kernel(const T* __restrict__ pred, std::size_t ldp, int rows, int k,
                           const double* __restrict__ bias, const double* __restrict__ target,
                           const double* __restrict__ weight, const double* __restrict__ offset,
                           const long long* __restrict__ classes, ReduceScratch scratch,
                           double* __restrict__ results) {
  double sse = 0.0, correct = 0.0;
  for (int i = blockIdx.x * kBlock + threadIdx.x; i < rows; i += gridDim.x * kBlock) {
    double best = 0.0;
    long long arg = -1;
    for (int j = 0; j < k; ++j) {
      const std::size_t ij = static_cast<std::size_t>(i) * k + j;
      const double v =
          bias[j] + (pred != nullptr ? static_cast<double>(pred[i + static_cast<std::size_t>(j) * ldp]) : 0.0);
      const double r = v - target[ij];
      sse += weight[j] * r * r;
      if (classes == nullptr) continue;
      const double score = offset != nullptr ? v + offset[ij] : v;
      if (arg < 0 || score > best) {  // the first largest, as std::max_element
        best = score;
        arg = j;
      }
    }
    if (classes != nullptr && arg == classes[i]) correct += 1.0;
  }
  sse = block_sum(sse);
  correct = block_sum(correct);
  if (threadIdx.x == 0) {
    scratch.values[blockIdx.x] = sse;
    scratch.values[gridDim.x + blockIdx.x] = correct;
  }
  if (!last_block_done(scratch.tickets + 4)) return;
  const double total_sse = combine_sums(scratch.values, gridDim.x);
  const double total_correct = combine_sums(scratch.values + gridDim.x, gridDim.x);
  if (threadIdx.x == 0) {
    results[kValidationSse] = total_sse;
    results[kValidationCorrect] = total_correct;
    scratch.tickets[4] = 0;
  }
}

// Four consecutive rows of one column per lane, as 16-byte loads; zeros past the last row.
template <typename T>
struct Rows4 {
  T v[4];
};
__device__ __forceinline__ Rows4<float> load_rows4(const float* p, bool valid) {
  const float4 x = valid ? *reinterpret_cast<const float4*>(p) : make_float4(0.f, 0.f, 0.f, 0.f);
  return Rows4<float>{{x.x, x.y, x.z, x.w}};
}
__device__ __forceinline__ Rows4<double> load_rows4(const double* p, bool valid) {
  const double2 x = valid ? reinterpret_cast<const double2*>(p)[0] : make_double2(0.0, 0.0);
  const double2 y = valid ? reinterpret_cast<const double2*>(p)[1] : make_double2(0.0, 0.0);
  return Rows4<double>{{x.x, x.y, y.x, y.y}};
}

// Lane l's rows of a tile of V vectors per lane: for v < V, rows 128 v + 4 l .. 128 v + 4 l + 3,
// so each of a warp's loads is 512 contiguous bytes.
__device__ __forceinline__ int lane_row(int v, int lane) { return 128 * v + 4 * lane; }

// Shapes of CGS's tiles of V vectors per lane: kRows rows, kRowsPerThread of them per thread in
// the row-wise steps (thread t: rows t, t + kBlock, ...), and kColumns columns in flight in
// tile_times (8 loads per lane either way), kProject in tile_project.
template <int V>
struct CgsTile {
  static constexpr int kRows = 128 * V;
  static constexpr int kRowsPerThread = (kRows + kBlock - 1) / kBlock;
  static constexpr int kColumns = 8 / V;
  static constexpr int kProject = V == 1 ? 4 : 1;
};

// (Q h) for the tile's rows from row0: warp w sums columns w, w + kWarps, ... in ascending
// order, CgsTile<V>::kColumns columns in flight; then the warps' sums are added in warp order.
// Thread t gets rows row0 + t, row0 + t + kBlock, ... (those in the tile). Ends with the
// block's barrier: `sums` is free again after the caller's next barrier.
template <int V, typename T>
__device__ __forceinline__ void tile_times(const T* __restrict__ q, std::size_t ldq, int cols, const T* __restrict__ h,
                                           int row0, int padded_rows, T (*sums)[CgsTile<V>::kRows],
                                           T (&out)[CgsTile<V>::kRowsPerThread]) {
  constexpr int kC = CgsTile<V>::kColumns;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const T* base = q + row0;
  bool valid[V];
#pragma unroll
  for (int v = 0; v < V; ++v) valid[v] = row0 + lane_row(v, lane) < padded_rows;
  T acc[V][4];
#pragma unroll
  for (int v = 0; v < V; ++v)
#pragma unroll
    for (int r = 0; r < 4; ++r) acc[v][r] = T(0);
  int j = warp;
  for (; j + (kC - 1) * kWarps < cols; j += kC * kWarps) {
    Rows4<T> x[kC][V];
#pragma unroll
    for (int c = 0; c < kC; ++c)
#pragma unroll
      for (int v = 0; v < V; ++v)
        x[c][v] = load_rows4(base + static_cast<std::size_t>(j + c * kWarps) * ldq + lane_row(v, lane), valid[v]);
#pragma unroll
    for (int c = 0; c < kC; ++c) {
      const T hj = __ldg(h + j + c * kWarps);
#pragma unroll
      for (int v = 0; v < V; ++v)
#pragma unroll
        for (int r = 0; r < 4; ++r) acc[v][r] = fma(x[c][v].v[r], hj, acc[v][r]);
    }
  }
  for (; j < cols; j += kWarps) {
    const T hj = __ldg(h + j);
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const Rows4<T> x = load_rows4(base + static_cast<std::size_t>(j) * ldq + lane_row(v, lane), valid[v]);
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[v][r] = fma(x.v[r], hj, acc[v][r]);
    }
  }
#pragma unroll
  for (int v = 0; v < V; ++v)
#pragma unroll
    for (int r = 0; r < 4; ++r) sums[warp][lane_row(v, lane) + r] = acc[v][r];
  __syncthreads();
#pragma unroll
  for (int part = 0; part < CgsTile<V>::kRowsPerThread; ++part) {
    const int r = static_cast<int>(threadIdx.x) + part * kBlock;
    T total = T(0);
    if (r < CgsTile<V>::kRows)
      for (int w = 0; w < kWarps; ++w) total += sums[w][r];
    out[part] = total;
  }
}

// h2's share of one tile: for each of the warp's columns j (w, w + kWarps, ...), the sum over
// the tile's rows of q_ij u_i is added to column j's partial of this block (only this warp
// touches it). The same warp read these columns of the tile a moment before, so the loads are
// served by the cache.
template <int V, typename T>
__device__ __forceinline__ void tile_project(const T* __restrict__ q, std::size_t ldq, int cols,
                                             const T* __restrict__ u_tile, int row0, int padded_rows, bool first,
                                             T* __restrict__ partial, int blocks) {
  constexpr int kP = CgsTile<V>::kProject;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const T* base = q + row0;
  bool valid[V];
  T u[V][4];
#pragma unroll
  for (int v = 0; v < V; ++v) {
    valid[v] = row0 + lane_row(v, lane) < padded_rows;
#pragma unroll
    for (int r = 0; r < 4; ++r) u[v][r] = u_tile[lane_row(v, lane) + r];
  }
  int j = warp;
  for (; j < cols; j += kP * kWarps) {
    T s[kP];
#pragma unroll
    for (int c = 0; c < kP; ++c) {
      s[c] = T(0);
      if (j + c * kWarps >= cols) continue;
#pragma unroll
      for (int v = 0; v < V; ++v) {
        const Rows4<T> x = load_rows4(base + static_cast<std::size_t>(j + c * kWarps) * ldq + lane_row(v, lane), valid[v]);
#pragma unroll
        for (int r = 0; r < 4; ++r) s[c] = fma(x.v[r], u[v][r], s[c]);
      }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
#pragma unroll
      for (int c = 0; c < kP; ++c) s[c] += __shfl_xor_sync(0xffffffffu, s[c], offset);
    if (lane == 0)
#pragma unroll
      for (int c = 0; c < kP; ++c) {
        if (j + c * kWarps >= cols) break;
        T* p = partial + static_cast<std::size_t>(j + c * kWarps) * blocks + blockIdx.x;
        *p = first ? s[c] : *p + s[c];
      }
  }
}

// The end of CGS's first pass: the blocks' ||u||^2 and ||phi||^2 (thread 0's su and sp) summed
// in a fixed order by the last block, which stores the norms and the DGKS decision. Lazy
// CGS2 (k_lazy >= 0) also sums u^T E_j (ue, k_lazy values) into results[kResultA + j] and
// always asks for the second projection, which costs it no read of Q.
__device__ __forceinline__ void first_pass_decision(double su, double sp, double ratio2, ReduceScratch scratch,
                                                    double* __restrict__ results, int k_lazy = -1,
                                                    const double* ue = nullptr) {
  // Slots: 0 = ||u||^2, 1 = ||phi||^2, 2 + j = u^T E_j; each gridDim.x wide.
  const int blocks = gridDim.x;
  su = block_sum(su);
  sp = block_sum(sp);
  if (threadIdx.x == 0) {
    scratch.values[blocks + blockIdx.x] = sp;
    scratch.values[blockIdx.x] = su;
  }
  for (int j = 0; j < k_lazy; ++j) {
    const double s = block_sum(ue[j]);
    if (threadIdx.x == 0) scratch.values[(2 + j) * blocks + blockIdx.x] = s;
  }
  if (!last_block_done(scratch.tickets + 3)) return;
  const double nu2 = combine_sums(scratch.values, blocks);
  const double np2 = combine_sums(scratch.values + blocks, blocks);
  for (int j = 0; j < k_lazy; ++j) {
    const double s = combine_sums(scratch.values + (2 + j) * blocks, blocks);
    if (threadIdx.x == 0) results[kResultA + j] = s;
  }
  if (threadIdx.x == 0) {
    results[kNormPhi] = sqrt(np2);
    results[kNormPhi2] = np2;
    results[kNormU2] = nu2;
    // As model::needs_reorthogonalization: a NaN norm projects again, never skips.
    results[kReorthogonalize] = (k_lazy < 0 && nu2 >= ratio2 * np2) ? 0.0 : 1.0;
    scratch.tickets[3] = 0;
  }
}

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
#pragma unroll
    for (int part = 0; part < CgsTile<V>::kRowsPerThread; ++part) {
      const int r = static_cast<int>(threadIdx.x) + part * kBlock, i = row0 + r;
      ui[part] = r < kRows && i < padded_rows ? column[i] : T(0);
    }
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
#pragma unroll
    for (int part = 0; part < CgsTile<V>::kRowsPerThread; ++part) {
      const int r = static_cast<int>(threadIdx.x) + part * kBlock, i = row0 + r;
      ui[part] = r < kRows && i < padded_rows ? u[i] : T(0);
    }
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

template <typename T>
__global__ void residual_row_norms_kernel(const T* __restrict__ e, std::size_t lde, int k,
                                          const long long* __restrict__ rows, int count, double* __restrict__ score) {
  const int c = blockIdx.x * kBlock + threadIdx.x;
  if (c >= count) return;
  const long long row = rows[c];
  double s = 0.0;
  if (row >= 0)
    for (int j = 0; j < k; ++j) {
      const double v = static_cast<double>(e[static_cast<std::size_t>(row) + static_cast<std::size_t>(j) * lde]);
      s += v * v;
    }
  score[c] = s;
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

template <typename T, typename A>
cudaError_t launch_residual_update(T* e, std::size_t lde, int padded_rows, int k, const T* q,
                                   const A* a, const ReduceScratch& scratch, double* results,
                                   cudaStream_t stream) {
  residual_update_kernel<T, A><<<reduce_blocks(padded_rows), kBlock, 0, stream>>>(
      e, lde, padded_rows, k, q, a, scratch, results);
  return cudaGetLastError();
}

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

template <typename T>
cudaError_t launch_residual_row_norms(const T* e, std::size_t lde, int k, const long long* rows, int count,
                                      double* score, cudaStream_t stream) {
  residual_row_norms_kernel<T><<<(count + kBlock - 1) / kBlock, kBlock, 0, stream>>>(e, lde, k, rows, count, score);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_validation_sums(const T* pred, std::size_t ldp, int rows, int k, const double* bias,
                                   const double* target, const double* weight, const double* offset,
                                   const long long* classes, const ReduceScratch& scratch, double* results,
                                   cudaStream_t stream) {
  validation_sums_kernel<T><<<reduce_blocks(rows), kBlock, 0, stream>>>(pred, ldp, rows, k, bias, target, weight,
                                                                        offset, classes, scratch, results);
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
  template cudaError_t launch_residual_update<T, T>(T*, std::size_t, int, int, const T*, const T*, \
                                                    const ReduceScratch&, double*, cudaStream_t); \
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
                                            const ReduceScratch&, double*, int, cudaStream_t);  \
  template cudaError_t launch_normalize<T>(T*, int, const double*, cudaStream_t);              \
  template cudaError_t launch_validation_sums<T>(const T*, std::size_t, int, int, const double*, const double*, \
                                                 const double*, const double*, const long long*,  \
                                                 const ReduceScratch&, double*, cudaStream_t);      \
  template cudaError_t launch_residual_row_norms<T>(const T*, std::size_t, int, const long long*, int, double*, \
                                                    cudaStream_t);                                 \
  template cudaError_t launch_gaussian_pairs<T>(const T*, const T*, const T*, int, int, T*,    \
                                                cudaStream_t);
RBF_INSTANTIATE(float)
RBF_INSTANTIATE(double)
#undef RBF_INSTANTIATE
// a as CGS's last pass left it in the call results (double), for float E.
template cudaError_t launch_residual_update<float, double>(float*, std::size_t, int, int, const float*, const double*,
                                                           const ReduceScratch&, double*, cudaStream_t);

}  // namespace gpu
}  // namespace rbf
