// Launchers of the row-wise kernels (vector_kernels.cu): the bias column, the residual update,
// residual row norms, normalization, the validation sums and Gaussian activations of pairs.
// Plain pointers and sizes, C++14, so both nvcc and the host compiler include it. Each
// launcher returns cudaGetLastError() after its launches; callers wrap it in RBF_CUDA_CHECK.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/kernel_constants.hpp"

namespace rbf {
namespace gpu {

// v[i] = value (times scale[i] when given) for i < rows, 0 for rows <= i < padded_rows.
template <typename T>
cudaError_t launch_fill_prefix(T* v, int padded_rows, int rows, T value, cudaStream_t stream,
                               const T* scale = nullptr);

// out[i] = a[i] b[i] for i < count (out may be a or b).
template <typename T>
cudaError_t launch_multiply(const T* a, const T* b, T* out, int count, cudaStream_t stream);

// E -= q a^T (E padded_rows x k, column-major), then results[kResidualNorm2] = ||E||_F^2 and
// results[kResultA + j] = a[j]. A is T, or double for a in the call results (a may alias them).
template <typename T, typename A>
cudaError_t launch_residual_update(T* e, std::size_t lde, int padded_rows, int k, const T* q,
                                   const A* a, const ReduceScratch& scratch, double* results,
                                   cudaStream_t stream);

// Row-sharded max-residual selection: score[c] = ||E_row||^2 for the row rows[c] of E (the
// shard's local row), 0 when rows[c] < 0 (another shard holds it).
template <typename T>
cudaError_t launch_residual_row_norms(const T* e, std::size_t lde, int k, const long long* rows, int count,
                                      double* score, cudaStream_t stream);

// u /= ||u|| unless results[kDependent] is set (the decision stays on the device).
template <typename T>
cudaError_t launch_normalize(T* u, int padded_rows, const double* results, cudaStream_t stream);

// The validation score's sums (model::ValidationSums) of the predictions bias_j + pred_ij
// (pred rows x k, column-major, leading dimension ldp; null: all 0) against target (rows x k row-major,
// weighted by weight_j) into results[kValidationSse]; with classes (else null), the rows whose
// first argmax_j of the prediction + offset_ij (offset null: none) is classes_i, into
// results[kValidationCorrect]. With row_weight (else null) row i counts row_weight_i times in
// both. Deterministic order, as the other reductions.
template <typename T>
cudaError_t launch_validation_sums(const T* pred, std::size_t ldp, int rows, int k, const double* bias,
                                   const double* target, const double* weight, const double* offset,
                                   const long long* classes, const double* row_weight, const ReduceScratch& scratch,
                                   double* results, cudaStream_t stream);

// Gaussian activations of `count` (sample, center) pairs (both row-major count x d):
// out[i] = exp(-||x_i - c_i||^2 * gamma[i]).
template <typename T>
cudaError_t launch_gaussian_pairs(const T* x, const T* centers, const T* gamma, int count, int d,
                                  T* out, cudaStream_t stream);

}  // namespace gpu
}  // namespace rbf
