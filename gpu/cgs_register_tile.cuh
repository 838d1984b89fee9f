// CGS's first pass with the tile held in registers: Q is read from memory once per node.
//
// The first pass needs each tile of Q twice: for u = phi - Q h1, and then, with u known, for
// the block's share of h2 = Q^T u. The general kernel (cgs_kernels.cu) re-reads the tile and
// hopes it is still in cache; with hundreds of columns a 512-row tile is ~1 MB, so the re-read
// goes to L2 or memory, and the pass ran at about 2/3 of the copy bandwidth. Here a block's
// tile of 32 V rows x up to 8 kC columns stays in registers between the two
// steps (V kC <= 128 values per lane), so it is read once.
#pragma once

#include <cstddef>

#include "gpu/cgs_kernels.hpp"
#include "gpu/kernel_constants.hpp"
#include "gpu/reductions.cuh"

namespace rbf {
namespace gpu {

// A register-tile variant: V rows per lane, kC columns per warp, so a block's tile is 32 V rows
// of kWarps kC columns, V kC values per lane. Up to 64 values two blocks fit on a
// multiprocessor; 128 leave room for one.
template <int V, int kC>
struct CgsRegisterTile {
  static constexpr int kColumnsPerWarp = kC;
  static constexpr int kMaxColumns = kWarps * kC;
  static constexpr int kBlocksPerSm = V * kC <= 64 ? 2 : 1;
};

template <int V>
struct RowsV {
  float v[V];
};
__device__ __forceinline__ RowsV<1> load_rows(const float* p, RowsV<1>) { return RowsV<1>{{*p}}; }
__device__ __forceinline__ RowsV<2> load_rows(const float* p, RowsV<2>) {
  const float2 x = *reinterpret_cast<const float2*>(p);
  return RowsV<2>{{x.x, x.y}};
}
__device__ __forceinline__ RowsV<4> load_rows(const float* p, RowsV<4>) {
  const float4 x = *reinterpret_cast<const float4*>(p);
  return RowsV<4>{{x.x, x.y, x.z, x.w}};
}

// Sums each of a lane's N values (N a power of two, <= 32) over the warp's 32 lanes in a fixed
// order. A transposing butterfly: each step a lane keeps half of its values and adds its
// partner's other half, so 32 sums take 31 shuffles, not 5 x 32. At the end v[0] of lane l is
// the sum of value (l >> (5 - log2 N)); with N < 32, neighbouring lanes hold the same sum.
template <int N>
__device__ __forceinline__ void warp_transpose_sum(float (&v)[N]) {
  const int lane = threadIdx.x & 31;
  int count = N;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    if (count > 1) {
      const bool upper = (lane & offset) != 0;
      const int half = count / 2;
#pragma unroll
      for (int i = 0; i < N / 2; ++i) {
        if (i >= half) break;
        const float send = upper ? v[i] : v[i + half];
        const float keep = upper ? v[i + half] : v[i];
        v[i] = keep + __shfl_xor_sync(0xffffffffu, send, offset);
      }
      count = half;
    } else {
      v[0] += __shfl_xor_sync(0xffffffffu, v[0], offset);
    }
  }
}

// Lazy CGS2's step for one row i of a first pass (lazy.e set; both first passes use it): E_i -=
// q_i a^T with the pending column's finished q_i (when one is pending), then ue += u_i E_i.
template <typename T>
__device__ __forceinline__ void lazy_residual_row(const LazyCgs<T>& lazy, int i, T q_i, T u_i,
                                                  const double* __restrict__ results, double* ue) {
  for (int j = 0; j < lazy.k; ++j) {
    T* p = lazy.e + i + static_cast<std::size_t>(j) * lazy.lde;
    T v = *p;
    if (lazy.pending != nullptr) {
      v -= q_i * static_cast<T>(results[kResultA + j]);
      *p = v;
    }
    ue[j] += static_cast<double>(u_i) * static_cast<double>(v);
  }
}

// Lazy CGS2's settling of a tile's pending column (column `last`, read into x like the rest):
// q = (pending - Q_prev g) * scale, written back to `pending` and into the owner warp's
// registers in place of the loaded values. Returns row t's finished value to thread t < 32 V.
// sums and q_tile are the block's shared scratch; gs holds g (0 for the pending column).
template <int V, int kC>
__device__ __forceinline__ float settle_pending_column(RowsV<V> (&x)[kC], const float* gs, float (*sums)[32 * V],
                                                       float* q_tile, float* __restrict__ pending, int row0,
                                                       float scale, int last) {
  constexpr int kRows = 32 * V;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float qp = 0.0f;
  float accg[V];
#pragma unroll
  for (int r = 0; r < V; ++r) accg[r] = 0.0f;
#pragma unroll
  for (int c = 0; c < kC; ++c) {
    const float gj = gs[warp + c * kWarps];  // 0 for the pending column itself
#pragma unroll
    for (int r = 0; r < V; ++r) accg[r] = fmaf(x[c].v[r], gj, accg[r]);
  }
#pragma unroll
  for (int r = 0; r < V; ++r) sums[warp][V * lane + r] = accg[r];
  __syncthreads();
  if (threadIdx.x < kRows) {
    float total = 0.0f;
    for (int w = 0; w < kWarps; ++w) total += sums[w][threadIdx.x];
    float* column = pending + row0 + static_cast<int>(threadIdx.x);
    qp = (*column - total) * scale;
    *column = qp;
    q_tile[threadIdx.x] = qp;
  }
  __syncthreads();
  // Selects, not x[last / kWarps]: a runtime index would put x in local memory.
  float qv[V];
#pragma unroll
  for (int r = 0; r < V; ++r) qv[r] = q_tile[V * lane + r];
#pragma unroll
  for (int c = 0; c < kC; ++c) {
    const bool finished = warp + c * kWarps == last;
#pragma unroll
    for (int r = 0; r < V; ++r) x[c].v[r] = finished ? qv[r] : x[c].v[r];
  }
  return qp;
}

// u = phi - Q h1 and this block's share of h2 = Q^T u (partial[j * gridDim.x + block]), with
// ||u||^2 and ||phi||^2 summed over the block's rows (returned in thread 0). Lane l of warp w
// holds rows 32 V t + V l .. + V - 1 of columns w, w + kWarps, ... of tile t. Requires
// cols <= CgsRegisterTile<V, kC>::kMaxColumns and padded_rows a multiple of 32 V.
// Lazy CGS2 (lazy.pending, see launch_cgs_subtract): the tile's pending column is finished
// from the same registers first, written back, and replaces the loaded u in the owner warp's
// registers before phi is projected; with lazy.e, E is updated and u^T E summed into ue.
template <int V, int kC>
__device__ __forceinline__ void cgs_subtract_register_tiles(const float* __restrict__ q, std::size_t ldq, int cols,
                                                            const float* __restrict__ h,
                                                            const float* __restrict__ phi, float* __restrict__ u,
                                                            int padded_rows, float* __restrict__ partial,
                                                            const LazyCgs<float>& lazy,
                                                            const double* __restrict__ results, double& su,
                                                            double& sp, double* ue) {
  constexpr int kRows = 32 * V;
  constexpr int kChunk = kC < 32 ? kC : 32;  // columns per transposing sum
  __shared__ float hs[kWarps * kC];
  __shared__ float gs[kWarps * kC];
  __shared__ float sums[kWarps][kRows];
  __shared__ __align__(16) float u_tile[kRows];
  __shared__ __align__(16) float q_tile[kRows];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const bool settle = lazy.pending != nullptr;
  const int last = cols - 1;  // the pending column, when settling
  for (int j = threadIdx.x; j < kWarps * kC; j += kBlock) {
    hs[j] = j < cols ? h[j] : 0.0f;
    gs[j] = settle && j < last ? lazy.g[j] : 0.0f;
  }
  const float scale = settle ? static_cast<float>(1.0 / results[kNormU]) : 0.0f;
  float share[kC / kChunk];
#pragma unroll
  for (int b = 0; b < kC / kChunk; ++b) share[b] = 0.0f;
  __syncthreads();
  const int tiles = padded_rows / kRows;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int row0 = tile * kRows;
    // phi is loaded with the tile of Q, not after the barrier that needs Q h: each tile then
    // waits for one memory latency instead of two (at small bases the pass is bound by that
    // latency, not by its bytes).
    const float p = threadIdx.x < kRows ? phi[row0 + static_cast<int>(threadIdx.x)] : 0.0f;
    RowsV<V> x[kC];
#pragma unroll
    for (int c = 0; c < kC; ++c) {
      const int j = warp + c * kWarps;
      if (j < cols) {
        // A pending column is read (and later written) through its own pointer, not q.
        const float* src = settle && j == last ? lazy.pending : q + static_cast<std::size_t>(j) * ldq;
        x[c] = load_rows(src + row0 + V * lane, RowsV<V>{});
      } else {
#pragma unroll
        for (int r = 0; r < V; ++r) x[c].v[r] = 0.0f;
      }
    }
    // Thread t < kRows: the pending column's finished value in row t.
    const float qp = settle ? settle_pending_column<V, kC>(x, gs, sums, q_tile, lazy.pending, row0, scale, last) : 0.0f;
    float acc[V];
#pragma unroll
    for (int r = 0; r < V; ++r) acc[r] = 0.0f;
#pragma unroll
    for (int c = 0; c < kC; ++c) {
      const float hj = hs[warp + c * kWarps];
#pragma unroll
      for (int r = 0; r < V; ++r) acc[r] = fmaf(x[c].v[r], hj, acc[r]);
    }
#pragma unroll
    for (int r = 0; r < V; ++r) sums[warp][V * lane + r] = acc[r];
    __syncthreads();
    if (threadIdx.x < kRows) {
      float total = 0.0f;
      for (int w = 0; w < kWarps; ++w) total += sums[w][threadIdx.x];
      const int i = row0 + static_cast<int>(threadIdx.x);
      const float w = p - total;
      u[i] = w;
      u_tile[threadIdx.x] = w;
      su += static_cast<double>(w) * static_cast<double>(w);
      sp += static_cast<double>(p) * static_cast<double>(p);
      if (lazy.e != nullptr) lazy_residual_row(lazy, i, qp, w, results, ue);
    }
    __syncthreads();
    float ur[V];
#pragma unroll
    for (int r = 0; r < V; ++r) ur[r] = u_tile[V * lane + r];
#pragma unroll
    for (int b = 0; b < kC / kChunk; ++b) {
      float s[kChunk];
#pragma unroll
      for (int c = 0; c < kChunk; ++c) {
        s[c] = 0.0f;
#pragma unroll
        for (int r = 0; r < V; ++r) s[c] = fmaf(x[b * kChunk + c].v[r], ur[r], s[c]);
      }
      warp_transpose_sum(s);
      share[b] += s[0];
    }
    // The next tile's sums, u_tile and q_tile are written only after its first barrier... with
    // a pending column, its first write of sums comes before that barrier, but after this
    // tile's last one, which every thread passes only once it has read this tile's sums.
  }
  // Lane l holds column chunk b's value l >> (5 - log2 kChunk); one lane of each writes it.
  constexpr int kShift = kChunk == 32 ? 0 : kChunk == 16 ? 1 : kChunk == 8 ? 2 : kChunk == 4 ? 3 : kChunk == 2 ? 4 : 5;
  if ((lane & ((1 << kShift) - 1)) == 0) {
#pragma unroll
    for (int b = 0; b < kC / kChunk; ++b) {
      const int j = warp + (b * kChunk + (lane >> kShift)) * kWarps;
      if (j < cols) partial[static_cast<std::size_t>(j) * gridDim.x + blockIdx.x] = share[b];
    }
  }
}

}  // namespace gpu
}  // namespace rbf
