// Launchers of CGS2's kernels (cgs_kernels.cu): the passes over Q that orthogonalize a new
// node's column, with the DGKS decision and lazy CGS2's steps kept on the device. Plain
// pointers and sizes, C++14, so both nvcc and the host compiler include it. Each launcher
// returns cudaGetLastError() after its launches; callers wrap it in RBF_CUDA_CHECK.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/kernel_constants.hpp"

namespace rbf {
namespace gpu {

// Outputs up to this many have a = q^T E computed inside CGS2's last pass (one pass less).
constexpr int kMaxFusedOutputs = 16;

// CGS2's passes over Q work on tiles of 128 cgs_tile_vectors(padded rows) rows (each lane
// loads that many 16-byte vectors of 4 rows per column), looped over by cgs_blocks(padded
// rows) blocks, each taking the same number of tiles (but the last). Both depend on the row
// count alone, so the sums have the same order on every device. Long tiles (2 KB per column)
// make the reads of Q faster once there are rows enough for a few blocks per multiprocessor;
// below that, short tiles keep more blocks busy.
constexpr int kCgsLongTileRows = 131072;
constexpr int kCgsBlocks = 1024;
inline int cgs_tile_vectors(int padded_rows) { return padded_rows >= kCgsLongTileRows ? 4 : 1; }
inline int cgs_blocks(int padded_rows) {
  const int tile_rows = 128 * cgs_tile_vectors(padded_rows);
  const int tiles = (padded_rows + tile_rows - 1) / tile_rows;
  if (tiles <= 1) return 1;
  const int per_block = (tiles + kCgsBlocks - 1) / kCgsBlocks;
  return (tiles + per_block - 1) / per_block;
}

// Loads CGS2's kernels (CUDA loads a kernel lazily, at its first launch: a fraction of a
// millisecond each), so set-up pays for them and not a growth iteration.
template <typename T>
cudaError_t preload_cgs_kernels();

// CGS's first pass: u = phi - Q h (Q padded_rows x cols, column-major) and, in the same
// launch, mark_used[0] = 1 (when not null), results[kNormPhi] = ||phi||, results[kNormPhi2]
// = ||phi||^2 and the DGKS decision results[kReorthogonalize] = 1 unless
// ||u||^2 >= ratio2 ||phi||^2 (ratio2: model::kReorthogonalizeRatio squared, from the host).
// From the same read of Q it also leaves each block's share of h2 = Q^T u in partial
// (cgs_blocks(padded_rows) x cols, column-major), for launch_cgs_reduce.
//
// Lazy CGS2 (gpu/cuda_orthogonalize.cpp) passes `lazy`. Its first pass always sums h2's shares
// (results[kReorthogonalize] = 1) and, with e, u^T E into results[kResultA + j] (E as left by
// the pending column, k <= kMaxFusedOutputs). With `pending`, Q's last column (cols - 1)
// still holds the previous node's u: the pass first finishes it in the same read of Q,
// q = (u - Q[:, :cols-1] g) / results[kNormU], writes it back, applies E -= q a^T with the a
// in results[kResultA + j], and only then projects phi on all cols columns.
template <typename T>
struct LazyCgs {
  T* e = nullptr;
  std::size_t lde = 0;
  int k = 0;
  T* pending = nullptr;  // Q's column cols - 1, holding its u
  const T* g = nullptr;  // that u's second-projection coefficients (cols - 1 values)
};
template <typename T>
cudaError_t launch_cgs_subtract(const T* q, std::size_t ldq, int cols, const T* h, const T* phi,
                                T* u, int padded_rows, unsigned char* mark_used, double ratio2,
                                const ReduceScratch& scratch, double* results, T* partial,
                                cudaStream_t stream, const LazyCgs<T>& lazy = LazyCgs<T>{});

// Lazy CGS2's end, after its first pass: h2 = the partials' sums (as launch_cgs_reduce), then
// ||q'||^2 = ||u||^2 - ||h2||^2 for the unfinished q' = u - Q h2 (Q is not read again),
// results[kNormU] = ||q'||, results[kDependent] as launch_cgs_finish's test,
// results[kResultA + j] = u^T E_j / ||q'|| (the first pass's sums) and results[h_offset + j] =
// h1[j] + h2[j]. u stays in place, unnormalized: the next first pass (or
// launch_cgs_settle) finishes it.
template <typename T>
cudaError_t launch_cgs_lazy_close(const T* partial, int padded_rows, int cols, const T* h1, T* h2, int k,
                                  double tol, const ReduceScratch& scratch, double* results, int h_offset,
                                  cudaStream_t stream);

// Finishes a pending column alone, for callers that need Q and E as they are: column =
// (column - Q[:, :cols] g) / results[kNormU], E -= column a^T (a in results[kResultA + j]),
// results[kResidualNorm2] = ||E||_F^2. One read of Q's first cols columns.
template <typename T>
cudaError_t launch_cgs_settle(const T* q, std::size_t ldq, int cols, const T* g, T* column, int padded_rows,
                              T* e, std::size_t lde, int k, const ReduceScratch& scratch, double* results,
                              cudaStream_t stream);

// CGS's second projection, only when results[kReorthogonalize] is set (the blocks return at
// once otherwise): h2[j] = the sum of the first pass's partials of column j, in block order.
// Deterministic, and Q is not read again for it.
template <typename T>
cudaError_t launch_cgs_reduce(const T* partial, int padded_rows, int cols, const double* results, T* h2,
                              cudaStream_t stream);

// CGS's last pass: u -= Q h2 when results[kReorthogonalize] is set (Q is not read otherwise),
// then results[kNormU] = ||u||, results[kDependent] = 1 unless ||u||^2 > tol ||phi||^2 (the
// test n_c - s_c <= tol n_c, ||phi||^2 from results[kNormPhi2]), results[h_offset + j] =
// h1[j] + h2[j] (h1[j] alone without the second projection); with e (k <= kMaxFusedOutputs),
// also the next update's a = u^T E / ||u|| in results[kResultA + j].
template <typename T>
cudaError_t launch_cgs_finish(const T* q, std::size_t ldq, int cols, const T* h1, const T* h2,
                              T* u, int padded_rows, const T* e, std::size_t lde, int k,
                              double tol, const ReduceScratch& scratch, double* results,
                              int h_offset, cudaStream_t stream);

}  // namespace gpu
}  // namespace rbf
