// Kernels of the scoring pass over the candidate matrix Phi_C: z = Phi_C^T q (read once,
// 16-byte streaming loads), and the statistics update + selection. The columns themselves
// are evaluated in gaussian_column_kernels.cu.
#include <algorithm>
#include <cstddef>

#include "gpu/candidate_kernels.hpp"
#include "gpu/kernel_constants.hpp"
#include "gpu/reductions.cuh"

namespace rbf {
namespace gpu {
namespace {

// Candidates per block of the statistics update (one per lane of each warp).
constexpr int kFinishCandidates = 32;
static_assert(kFinishCandidates % kWarps == 0, "whole candidates per warp in the lazy correction");

// One block: kScoreColumns candidates x one row chunk. Phi is streamed (evict-first loads),
// q is loaded once per 16-byte vector and reused for all columns of the group; kUnroll
// vectors per column per trip keep kUnroll * kScoreColumns independent loads in flight.
template <typename T, bool kSquare, int kUnroll>
__global__ void __launch_bounds__(kBlock)
    score_partials_kernel(const T* __restrict__ phi, std::size_t ldp, int first, int count,
                          const T* __restrict__ q, std::size_t chunk_vecs, std::size_t vecs,
                          const unsigned char* __restrict__ skip, T* __restrict__ partial,
                          int candidates, FusedResidual<T> residual) {
  using V = typename Vec16<T>::type;
  const int group = blockIdx.x * kScoreColumns;  // relative to `first`
  const std::size_t v_begin = static_cast<std::size_t>(blockIdx.y) * chunk_vecs;
  const std::size_t v_end = min(vecs, v_begin + chunk_vecs);

  const V* columns[kScoreColumns];
  bool active[kScoreColumns];
#pragma unroll
  for (int j = 0; j < kScoreColumns; ++j) {
    const int col = group + j;
    active[j] = col < count && (skip == nullptr || skip[first + col] == 0);
    columns[j] = reinterpret_cast<const V*>(phi + static_cast<std::size_t>(active[j] ? col : 0) * ldp);
  }
  T acc[kScoreColumns];
#pragma unroll
  for (int j = 0; j < kScoreColumns; ++j) acc[j] = T(0);

  const V* qv = reinterpret_cast<const V*>(q);
  std::size_t v = v_begin + threadIdx.x;
  for (; v + (kUnroll - 1) * kBlock < v_end; v += kUnroll * kBlock) {
    V p[kUnroll][kScoreColumns];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int j = 0; j < kScoreColumns; ++j)
        p[u][j] = active[j] ? load_streaming(columns[j] + v + u * kBlock) : zero_vec(V());
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const V qq = kSquare ? V() : __ldg(qv + v + u * kBlock);
#pragma unroll
      for (int j = 0; j < kScoreColumns; ++j)
        acc[j] = kSquare ? dot_acc(p[u][j], p[u][j], acc[j]) : dot_acc(p[u][j], qq, acc[j]);
    }
  }
  for (; v < v_end; v += kBlock) {
    const V qq = kSquare ? V() : __ldg(qv + v);
#pragma unroll
    for (int j = 0; j < kScoreColumns; ++j) {
      const V p = active[j] ? load_streaming(columns[j] + v) : zero_vec(V());
      acc[j] = kSquare ? dot_acc(p, p, acc[j]) : dot_acc(p, qq, acc[j]);
    }
  }

  if (residual.e != nullptr && blockIdx.x == 0) {
    // E -= q a^T over this chunk's rows, and the chunk's sum of E^2 (fixed order).
    constexpr int kW = Vec16<T>::width;
    const std::size_t row_end = v_end * kW;
    double sse = 0.0;
    for (std::size_t i = v_begin * kW + threadIdx.x; i < row_end; i += kBlock) {
      const T qi = q[i];
      for (int j = 0; j < residual.k; ++j) {
        T* p = residual.e + i + static_cast<std::size_t>(j) * residual.lde;
        const T v = *p - qi * static_cast<T>(residual.a[j]);
        *p = v;
        sse += static_cast<double>(v) * static_cast<double>(v);
      }
    }
    sse = block_sum(sse);
    if (threadIdx.x == 0) residual.sse[blockIdx.y] = sse;
  }

  __shared__ T sums[kWarps][kScoreColumns];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int j = 0; j < kScoreColumns; ++j) {
    T s = acc[j];
    for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_down_sync(0xffffffffu, s, offset);
    if (lane == 0) sums[warp][j] = s;
  }
  __syncthreads();
  if (threadIdx.x < kScoreColumns) {
    const int col = group + threadIdx.x;
    if (col < count) {
      T s = T(0);
      for (int w = 0; w < kWarps; ++w) s += sums[w][threadIdx.x];
      partial[static_cast<std::size_t>(blockIdx.y) * candidates + first + col] = s;
    }
  }
}

// Lazy CGS2: for each of the block's kFinishCandidates candidates, its unfinished column's
// share along Q, sum_j z_cj g_j over its history row, into share[]. Each warp takes
// kFinishCandidates / kWarps candidates with its lanes along the row, so the loads are
// contiguous and independent of each other.
template <typename T>
__device__ __forceinline__ void lazy_shares(const CandidateStats& stats, const History<T>& history, double* share) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  constexpr int kPerWarp = kFinishCandidates / kWarps;
  for (int i = 0; i < kPerWarp; ++i) {
    const int local = warp * kPerWarp + i, cc = blockIdx.x * kFinishCandidates + local;
    double s = 0.0;
    if (cc < stats.count && stats.used[cc] == kAvailable) {
      const T* row = history.z + static_cast<std::size_t>(cc) * history.ld;
#pragma unroll 4
      for (int j = lane; j < history.column; j += 32)
        s += static_cast<double>(row[j]) * static_cast<double>(history.g[j]);
    }
    for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_xor_sync(0xffffffffu, s, offset);
    if (lane == 0) share[local] = s;
  }
}

// Candidate c's selection key into best / best_index: its OLS score when it is available
// and independent of the model (a dependent one is marked for good when asked), or the
// squared residual at its row; left at -1 / -1 when it is not in the running.
template <typename T>
__device__ __forceinline__ void candidate_key(const CandidateStats& stats, const SelectRequest& select, int c,
                                              unsigned char mark, const T* __restrict__ e, std::size_t lde,
                                              const long long* __restrict__ rows, double& best,
                                              long long& best_index) {
  const int k = stats.k;
  if (select.mode == kSelectOls && mark == kAvailable) {
    const double n = stats.norm2[c];
    const double rest = n - stats.proj2[c];
    if (rest > select.tol * n) {
      double g2 = 0.0;
      for (int j = 0; j < k; ++j) {
        const double g = stats.g[static_cast<std::size_t>(c) * k + j];
        g2 += g * g;
      }
      const double score = g2 / (rest + select.lambda);
      if (score >= 0.0) {
        best = score;
        best_index = c;
      }
    } else if (select.mark_dependent != 0) {  // dependent on the model (NaN too), for good
      stats.used[c] = kMarkDependent;
    }
  } else if (select.mode == kSelectMaxResidual && mark != kMarkUsed) {
    const long long row = rows[c];
    double r2 = 0.0;
    for (int j = 0; j < k; ++j) {
      const double v = static_cast<double>(e[static_cast<std::size_t>(row) + j * lde]);
      r2 += v * v;
    }
    best = r2;
    best_index = c;
  }
}

// The block's best key into scratch; the last block to get there reduces the blocks' keys into
// results (with the residual sum of the row splits, when asked) and resets the ticket.
__device__ __forceinline__ void publish_selection(const SelectRequest& select, const double* __restrict__ sse,
                                                  int splits, ReduceScratch scratch, double* __restrict__ results,
                                                  double best, long long best_index) {
  block_argmax(best, best_index);
  if (threadIdx.x == 0) {
    scratch.values[blockIdx.x] = best;
    scratch.indices[blockIdx.x] = best_index;
  }
  if (!last_block_done(scratch.tickets + 0)) return;
  if (select.mode != kSelectNone) {
    best = -1.0;
    best_index = -1;
    for (int b = threadIdx.x; b < static_cast<int>(gridDim.x); b += kBlock) {
      const double s = load_coherent(scratch.values + b);
      const long long i = load_coherent(scratch.indices + b);
      if (better(s, i, best, best_index)) {
        best = s;
        best_index = i;
      }
    }
    block_argmax(best, best_index);
    if (threadIdx.x == 0) {
      results[kSelectedScore] = best_index >= 0 ? best : -1.0;
      results[kSelectedIndex] = static_cast<double>(best_index);
    }
  }
  if (sse != nullptr) {
    const double total = combine_sums(sse, splits);
    if (threadIdx.x == 0) results[kResidualNorm2] = total;
  }
  if (threadIdx.x == 0) scratch.tickets[0] = 0;
}

template <typename T>
__global__ void __launch_bounds__(kBlock)
    finish_update_kernel(CandidateStats stats, const T* __restrict__ partial, int splits,
                         const double* __restrict__ a, History<T> history, SelectRequest select,
                         const T* __restrict__ e, std::size_t lde, const long long* __restrict__ rows,
                         const double* __restrict__ sse, ReduceScratch scratch,
                         double* __restrict__ results) {
  // kFinishCandidates candidates per block, one per lane: warp w sums the row splits
  // w, w + kWarps, ... of its lane's candidate, then warp 0 adds the warps' sums in order and
  // goes on alone. Many warps share the splits, so their loads are in flight together.
  __shared__ double warp_z[kWarps][kFinishCandidates];
  __shared__ double lazy_share[kFinishCandidates];
  if (history.dependent != nullptr && *history.dependent != 0.0) return;  // every block alike
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int c = blockIdx.x * kFinishCandidates + lane;
  const int k = stats.k;
  double best = -1.0;
  long long best_index = -1;
  const unsigned char lane_mark = c < stats.count ? stats.used[c] : kMarkUsed;
  if (lane_mark == kAvailable && a != nullptr) {
    double part = 0.0;
#pragma unroll 4
    for (int s = warp; s < splits; s += kWarps)
      part += static_cast<double>(partial[static_cast<std::size_t>(s) * stats.count + c]);
    warp_z[warp][lane] = part;
  }
  if (history.g != nullptr && a != nullptr) lazy_shares(stats, history, lazy_share);
  __syncthreads();
  const unsigned char mark = warp == 0 ? lane_mark : kMarkUsed;
  if (mark == kAvailable && a != nullptr) {
    double z = 0.0;
    for (int w = 0; w < kWarps; ++w) z += warp_z[w][lane];
    if (history.g != nullptr) z -= lazy_share[lane];
    if (history.norm != nullptr) z /= *history.norm;
    stats.proj2[c] += z * z;
    history.z[static_cast<std::size_t>(c) * history.ld + history.column] = static_cast<T>(z);
    for (int j = 0; j < k; ++j) stats.g[static_cast<std::size_t>(c) * k + j] -= z * a[j];
  }
  candidate_key(stats, select, c, mark, e, lde, rows, best, best_index);
  if (select.mode == kSelectNone && sse == nullptr) return;
  publish_selection(select, sse, splits, scratch, results, best, best_index);
}

template <typename T>
__global__ void finish_reset_kernel(CandidateStats stats, const T* __restrict__ partial,
                                    int splits, const T* __restrict__ gq, History<T> history) {
  const int c = blockIdx.x * kBlock + threadIdx.x;
  if (c >= stats.count) return;
  double n = 0.0;
#pragma unroll 8
  for (int s = 0; s < splits; ++s) n += static_cast<double>(partial[static_cast<std::size_t>(s) * stats.count + c]);
  stats.norm2[c] = n;
  const double h0 = static_cast<double>(gq[c]);
  stats.proj2[c] = h0 * h0;
  history.z[static_cast<std::size_t>(c) * history.ld] = gq[c];
  for (int j = 0; j < stats.k; ++j)
    stats.g[static_cast<std::size_t>(c) * stats.k + j] =
        static_cast<double>(gq[c + static_cast<std::size_t>(j + 1) * stats.count]);
  stats.used[c] = 0;
}

template <typename T>
__global__ void revive_dependent_kernel(CandidateStats stats, History<T> history, int basis,
                                        const T* __restrict__ gq) {
  const int c = blockIdx.x * kBlock + threadIdx.x;
  if (c >= stats.count || stats.used[c] != kMarkDependent) return;
  double s = 0.0;
  for (int j = 0; j < basis; ++j) {
    const double z = static_cast<double>(history.z[static_cast<std::size_t>(c) * history.ld + j]);
    s += z * z;
  }
  stats.proj2[c] = s;
  for (int j = 0; j < stats.k; ++j)
    stats.g[static_cast<std::size_t>(c) * stats.k + j] =
        static_cast<double>(gq[c + static_cast<std::size_t>(j + 1) * stats.count]);
  stats.used[c] = kAvailable;
}

}  // namespace

ScorePartition make_score_partition(std::size_t padded_rows, int candidates, int multiprocessors,
                                    std::size_t element_size, int blocks_per_sm, int unroll) {
  ScorePartition p;
  p.unroll = unroll;
  p.vecs = padded_rows / (16 / element_size);
  const std::size_t groups = (static_cast<std::size_t>(std::max(candidates, 1)) + kScoreColumns - 1) / kScoreColumns;
  // About 16 blocks per multiprocessor keep enough loads in flight; chunks stay long enough
  // (>= 4 trips of the block) that the partial sums are cheap to combine.
  const std::size_t target =
      static_cast<std::size_t>(std::max(multiprocessors, 1)) * static_cast<std::size_t>(std::max(blocks_per_sm, 1));
  std::size_t splits = (target + groups - 1) / groups;
  const std::size_t max_splits = std::max<std::size_t>(1, p.vecs / (4 * kBlock));
  splits = std::min(std::max<std::size_t>(splits, 1), max_splits);
  p.chunk_vecs = (p.vecs + splits - 1) / splits;
  p.splits = static_cast<int>(p.chunk_vecs == 0 ? 1 : (p.vecs + p.chunk_vecs - 1) / p.chunk_vecs);
  if (p.chunk_vecs == 0) p.chunk_vecs = 1;
  return p;
}

template <typename T>
cudaError_t launch_score_partials(const T* phi, std::size_t ldp, int first, int count,
                                  const T* q, const ScorePartition& partition,
                                  const unsigned char* skip, T* partial, int candidates,
                                  const FusedResidual<T>& residual, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  const dim3 grid(blocks_for(static_cast<std::size_t>(count), kScoreColumns), partition.splits);
  const std::size_t cv = partition.chunk_vecs, vecs = partition.vecs;
  if (q == nullptr)
    score_partials_kernel<T, true, 2><<<grid, kBlock, 0, stream>>>(phi, ldp, first, count, q, cv, vecs,
                                                                   skip, partial, candidates, residual);
  else if (partition.unroll >= 4)
    score_partials_kernel<T, false, 4><<<grid, kBlock, 0, stream>>>(phi, ldp, first, count, q, cv,
                                                                    vecs, skip, partial, candidates, residual);
  else
    score_partials_kernel<T, false, 2><<<grid, kBlock, 0, stream>>>(phi, ldp, first, count, q, cv,
                                                                    vecs, skip, partial, candidates, residual);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_finish_update(const CandidateStats& stats, const T* partial, int splits,
                                 const double* a, const History<T>& history,
                                 const SelectRequest& select, const T* e, std::size_t lde,
                                 const long long* rows, const double* sse,
                                 const ReduceScratch& scratch, double* results,
                                 cudaStream_t stream) {
  if (stats.count <= 0) return cudaSuccess;
  finish_update_kernel<T><<<blocks_for(static_cast<std::size_t>(stats.count), kFinishCandidates), kBlock, 0,
                            stream>>>(stats, partial, splits, a, history, select, e, lde, rows, sse, scratch,
                                      results);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_finish_reset(const CandidateStats& stats, const T* partial, int splits,
                                const T* gq, const History<T>& history, cudaStream_t stream) {
  if (stats.count <= 0) return cudaSuccess;
  finish_reset_kernel<T><<<blocks_for(static_cast<std::size_t>(stats.count), kBlock), kBlock, 0,
                           stream>>>(stats, partial, splits, gq, history);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_revive_dependent(const CandidateStats& stats, const History<T>& history,
                                    int basis, const T* gq, cudaStream_t stream) {
  if (stats.count <= 0) return cudaSuccess;
  revive_dependent_kernel<T><<<blocks_for(static_cast<std::size_t>(stats.count), kBlock), kBlock, 0,
                               stream>>>(stats, history, basis, gq);
  return cudaGetLastError();
}

#define RBF_INSTANTIATE(T)                                                                      \
  template cudaError_t launch_score_partials<T>(const T*, std::size_t, int, int, const T*,      \
                                                const ScorePartition&, const unsigned char*, T*, \
                                                int, const FusedResidual<T>&, cudaStream_t);    \
  template cudaError_t launch_finish_update<T>(const CandidateStats&, const T*, int,            \
                                               const double*, const History<T>&,                \
                                               const SelectRequest&, const T*, std::size_t,     \
                                               const long long*, const double*,                 \
                                               const ReduceScratch&, double*, cudaStream_t);    \
  template cudaError_t launch_finish_reset<T>(const CandidateStats&, const T*, int, const T*,   \
                                              const History<T>&, cudaStream_t);                 \
  template cudaError_t launch_revive_dependent<T>(const CandidateStats&, const History<T>&, int, \
                                                  const T*, cudaStream_t);
RBF_INSTANTIATE(float)
RBF_INSTANTIATE(double)
#undef RBF_INSTANTIATE

}  // namespace gpu
}  // namespace rbf
