// Device building blocks of CGS's passes over Q (cgs_kernels.cu): 16-byte loads of a tile's
// rows, the tile products Q h and Q^T u, and the end of the first pass that both first-pass
// kernels share (the general one and cgs_register_tile.cuh's).
#pragma once

#include <cstddef>

#include "gpu/kernel_constants.hpp"
#include "gpu/reductions.cuh"

namespace rbf {
namespace gpu {

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

// This thread's rows of a vector's tile from row0, in the row-wise steps' order (thread t: rows
// row0 + t, row0 + t + kBlock, ...); 0 for rows past the tile or past padded_rows.
template <int V, typename T>
__device__ __forceinline__ void load_tile_rows(const T* __restrict__ v, int row0, int padded_rows,
                                               T (&out)[CgsTile<V>::kRowsPerThread]) {
#pragma unroll
  for (int part = 0; part < CgsTile<V>::kRowsPerThread; ++part) {
    const int r = static_cast<int>(threadIdx.x) + part * kBlock, i = row0 + r;
    out[part] = r < CgsTile<V>::kRows && i < padded_rows ? v[i] : T(0);
  }
}

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

}  // namespace gpu
}  // namespace rbf
