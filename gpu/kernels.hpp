// Launchers of the CUDA backend's kernels. Plain pointers and sizes, C++14, so both nvcc (the
// .cu files) and the host compiler (the backend) include it. Each launcher returns
// cudaGetLastError() after its launches; callers wrap it in RBF_CUDA_CHECK.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace rbf {
namespace gpu {

// Slots of the small double array that each call copies back to the host in one transfer.
enum ResultSlot : int {
  kResidualNorm2 = 0,  // ||E||_F^2 after the residual update
  kSelectedScore = 1,  // selection score, -1 when nothing is admissible
  kSelectedIndex = 2,  // selected candidate, -1 when nothing is admissible
  kNormU = 3,          // ||u|| after CGS2
  kNormPhi = 4,        // ||phi|| of the added candidate
  kDependent = 5,      // 1 when ||u|| <= tol * ||phi||
  kReorthogonalize = 6,  // 1 when CGS's first projection asks for a second one (DGKS)
  kNormPhi2 = 7,       // ||phi||^2, as the first CGS pass summed it
  kNormU2 = 8,         // ||u||^2, as the last CGS pass to run summed it (a shard's own rows)
  kValidationSse = 9,      // validation sums: the weighted squared error
  kValidationCorrect = 10,  // ... and the rows whose class is predicted right
  kResultA = 11,       // a = q^T E (k values), then CGS2's h (nodes + 1 values)
};
// Outputs up to this many have a = q^T E computed inside CGS2's last pass (one pass less).
constexpr int kMaxFusedOutputs = 16;

// Rows are padded with zeros to a multiple of this, so every column starts 16-byte aligned
// and the vector loads of the scoring pass need no tail code.
constexpr std::size_t kRowPadding = 64;
// Candidates per block of the scoring pass: q is read once per group of this many columns.
constexpr int kScoreColumns = 8;
// Blocks of the row-wise reductions (fixed, so results do not depend on the device).
constexpr int kReduceBlocks = 512;
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

// Scratch for deterministic two-level reductions: each block writes its value, the last
// block to finish (counted by a ticket) combines them in a fixed order.
struct ReduceScratch {
  double* values;         // (2 + k) * max(kReduceBlocks, cgs_blocks(padded rows), candidates / 32 + 1)
  long long* indices;     // same count
  unsigned int* tickets;  // kTicketCount counters, zero between launches
};
// Tickets by kernel: 0 the statistics update, 1 the residual update (and the pending column's
// settling), 2 CGS's last pass, 3 its first pass, 4 the validation sums, 5 lazy CGS2's close.
constexpr int kTicketCount = 6;

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

// Fused distance + exp: out[i + j*ldo] = exp(-gamma[c] * max(0, ||x_i - center_c||^2)) for
// c = first + j, j < count, i < rows (x feature-major, d x ldx); rows..padded_rows get 0.
// The squared distance is summed feature by feature in ascending order without FMA
// contraction, exactly as the CPU backend does.
template <typename T>
cudaError_t launch_eval_columns(const T* xt, std::size_t ldx, int rows, int padded_rows, int d,
                                const T* centers, const T* gamma, int first, int count, T* out,
                                std::size_t ldo, cudaStream_t stream);
// Loads the kernels a growth iteration launches (CUDA loads a kernel lazily, at its first
// launch: a fraction of a millisecond each), so set-up pays for them and not an iteration.
template <typename T>
cudaError_t preload_cgs_kernels();
template <typename T>
cudaError_t preload_column_kernel();

// The same column for the candidate whose index a selection left in *index (a call result,
// nothing when negative), without a round trip to the host.
template <typename T>
cudaError_t launch_eval_selected_column(const T* xt, std::size_t ldx, int rows, int padded_rows, int d,
                                        const T* centers, const T* gamma, const double* index, T* out,
                                        cudaStream_t stream);

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

// v[i] = value for i < rows, 0 for rows <= i < padded_rows.
// The validation score's sums (model::ValidationSums) of the predictions bias_j + pred_ij
// (pred rows x k, column-major, leading dimension ldp; null: all 0) against target (rows x k row-major,
// weighted by weight_j) into results[kValidationSse]; with classes (else null), the rows whose
// first argmax_j of the prediction + offset_ij (offset null: none) is classes_i, into
// results[kValidationCorrect]. Deterministic order, as the other reductions.
template <typename T>
cudaError_t launch_validation_sums(const T* pred, std::size_t ldp, int rows, int k, const double* bias,
                                   const double* target, const double* weight, const double* offset,
                                   const long long* classes, const ReduceScratch& scratch, double* results,
                                   cudaStream_t stream);

template <typename T>
cudaError_t launch_fill_prefix(T* v, int padded_rows, int rows, T value, cudaStream_t stream);

// E -= q a^T (E padded_rows x k, column-major), then results[kResidualNorm2] = ||E||_F^2 and
// results[kResultA + j] = a[j]. A is T, or double for a in the call results (a may alias them).
template <typename T, typename A>
cudaError_t launch_residual_update(T* e, std::size_t lde, int padded_rows, int k, const T* q,
                                   const A* a, const ReduceScratch& scratch, double* results,
                                   cudaStream_t stream);

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

// Row-sharded max-residual selection: score[c] = ||E_row||^2 for the row rows[c] of E (the
// shard's local row), 0 when rows[c] < 0 (another shard holds it).
template <typename T>
cudaError_t launch_residual_row_norms(const T* e, std::size_t lde, int k, const long long* rows, int count,
                                      double* score, cudaStream_t stream);

// u /= ||u|| unless results[kDependent] is set (the decision stays on the device).
template <typename T>
cudaError_t launch_normalize(T* u, int padded_rows, const double* results, cudaStream_t stream);

// Gaussian activations of `count` (sample, center) pairs (both row-major count x d):
// out[i] = exp(-||x_i - c_i||^2 * gamma[i]).
template <typename T>
cudaError_t launch_gaussian_pairs(const T* x, const T* centers, const T* gamma, int count, int d,
                                  T* out, cudaStream_t stream);

}  // namespace gpu
}  // namespace rbf
