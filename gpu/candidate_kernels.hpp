// Launchers of the scoring pass's kernels (candidate_kernels.cu): z = Phi_C^T q over the
// candidate columns, the candidate statistics it updates and the selection that follows.
// Plain pointers and sizes, C++14, so both nvcc and the host compiler include it. Each
// launcher returns cudaGetLastError() after its launches; callers wrap it in RBF_CUDA_CHECK.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/kernel_constants.hpp"

namespace rbf {
namespace gpu {

// Candidates per block of the scoring pass: q is read once per group of this many columns.
constexpr int kScoreColumns = 8;

// Candidate marks. A candidate found dependent on the model during an OLS selection
// (n_c - s_c <= tol n_c) stays dependent, since s_c only grows: it is marked and its column
// is no longer read by the scoring pass (its statistics go stale).
enum CandidateMark : unsigned char { kAvailable = 0, kMarkUsed = 1, kMarkDependent = 2 };

// Column statistics per candidate (all double; n_c, s_c, g_c = phi_c^T E, marks).
struct CandidateStats {
  int count;
  int k;
  double* norm2;        // n_c
  double* proj2;        // s_c
  double* g;            // count x k, row-major
  unsigned char* used;  // CandidateMark
};

// What the statistics kernel selects after its update: nothing, OLS or max-residual.
enum SelectMode : int { kSelectNone = 0, kSelectOls = 1, kSelectMaxResidual = 2 };
struct SelectRequest {
  int mode;
  double lambda;
  double tol;
  int mark_dependent;  // OLS: mark the candidates found dependent (kMarkDependent)
};

// How the scoring pass splits rows: `splits` chunks of `chunk_vecs` 16-byte vectors.
// Fixed per (rows, candidates, device), and shared by the stored and matrix-free modes, so
// both produce the same sums.
struct ScorePartition {
  int splits;
  std::size_t chunk_vecs;
  std::size_t vecs;
  int unroll;  // 16-byte vectors per column per loop trip (2 or 4)
};
ScorePartition make_score_partition(std::size_t padded_rows, int candidates, int multiprocessors,
                                    std::size_t element_size, int blocks_per_sm = 32,
                                    int unroll = 2);

// The residual update E -= q a^T folded into the scoring pass: the first column group's
// blocks update the rows of their chunk and leave sum(E^2) per chunk in `sse` (one value per
// row split). e == nullptr: no update.
template <typename T>
struct FusedResidual {
  T* e;
  std::size_t lde;
  int k;
  const double* a;
  double* sse;
};

// Scoring pass partial sums for columns first..first+count of a column block `phi` (ld ldp,
// column j is candidate first + j): partial[s * candidates + c] = sum over row chunk s of
// phi_c * q (or phi_c^2 when q is null). Columns with skip[c] != 0 are not read.
template <typename T>
cudaError_t launch_score_partials(const T* phi, std::size_t ldp, int first, int count,
                                  const T* q, const ScorePartition& partition,
                                  const unsigned char* skip, T* partial, int candidates,
                                  const FusedResidual<T>& residual, cudaStream_t stream);

// History of projections z_c = q_j^T phi_c (row-major count x ld): CGS2's first projection
// of a candidate is its row, so add_node reads Q three times instead of four.
template <typename T>
struct History {
  T* z;
  std::size_t ld;
  int column;  // the column this call writes
  // Lazy CGS2 (gpu/cuda_orthogonalize.cpp): the pass read the unfinished u of Q's column
  // `column`, so z_c = (sum of partials - sum_{j < column} z_cj g_j) / *norm. Null: z is final.
  const T* g = nullptr;
  const double* norm = nullptr;
  // Not null: when *dependent != 0 the node this column was for proved dependent, and the
  // call does nothing (queued before the host could know).
  const double* dependent = nullptr;
};

// Finishes the scoring pass and selects: for every unused candidate z_c = sum of partials,
// s_c += z_c^2, g_c -= z_c a, history z[c][column] = z_c (all skipped when a is null); then
// the argmax of the requested selection (ties: lowest index) into results[kSelectedScore],
// results[kSelectedIndex]; with `sse` (splits values), results[kResidualNorm2] = their sum.
template <typename T>
cudaError_t launch_finish_update(const CandidateStats& stats, const T* partial, int splits,
                                 const double* a, const History<T>& history,
                                 const SelectRequest& select, const T* e, std::size_t lde,
                                 const long long* rows, const double* sse,
                                 const ReduceScratch& scratch, double* results,
                                 cudaStream_t stream);

// Statistics of the bias-only model: n_c from the squared partial sums, s_c = (q0^T phi_c)^2
// and g_c from gq (count x (k+1) column-major: q0 projections, then phi_c^T E); history
// column 0 = q0^T phi_c. Clears used.
template <typename T>
cudaError_t launch_finish_reset(const CandidateStats& stats, const T* partial, int splits,
                                const T* gq, const History<T>& history, cudaStream_t stream);

// Brings candidates marked dependent back (a later selection uses a smaller tolerance):
// s_c = sum of the first `basis` history entries squared, g_c from gq's columns 1..k.
template <typename T>
cudaError_t launch_revive_dependent(const CandidateStats& stats, const History<T>& history,
                                    int basis, const T* gq, cudaStream_t stream);

}  // namespace gpu
}  // namespace rbf
