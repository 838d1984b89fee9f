// Launchers of the matrix-free scoring pass: z = Phi_C^T v computed from X and the candidate
// centers without ever writing Phi_C (kernels in matrix_free_kernels.cu, and on tensor cores
// in matrix_free_tensor_core_kernels.cu; the plan in matrix_free_plan.hpp). C++14, CUDA-only
// types, so both nvcc and the host compiler include it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "gpu/matrix_free_plan.hpp"

namespace rbf {
namespace gpu {

// The pass writes the exponent of each Gaussian, -L g_c ||x_i - c_c||^2 (L = log2 e,
// g_c = 1 / (2 sigma_c^2)), from two operands built once per candidate set: the rows' and the
// candidates'. Their layouts depend on the kernel the plan picked (matrix_free_kernels.cu,
// matrix_free_tensor_core_kernels.cu); MatrixFreePlan::row_floats and candidate_floats give their sizes. phi = exp2(exponent) (the
// CUDA-core kernel clamps the exponent at 0; on tensor cores it is within rounding of 0 at most).

// What plan_matrix_free needs to know of the scoring kernel it picks: the kernel (for the
// occupancy query), its threads, candidates and dynamic shared memory per block, and the
// floats per row and per candidate of the operands it reads.
struct MatrixFreeKernelShape {
  const void* kernel = nullptr;
  int threads = 0;
  int candidates = 0;
  int row_floats = 0;
  int candidate_floats = 0;
  int shared_bytes = 0;  // dynamic shared memory per block
};
// The CUDA-core kernel's shape for d features.
template <typename T>
MatrixFreeKernelShape matrix_free_cuda_core_shape(int d);

// The row operand (padded_rows x plan.row_floats) from X (feature-major, d x ldx); rows >= rows
// are zero.
template <typename T>
cudaError_t launch_matrix_free_rows(const T* xt, std::size_t ldx, int rows, int padded_rows, int d,
                                    const MatrixFreePlan& plan, T* x_aug, cudaStream_t stream);

// The candidate operand (matrix_free_padded_count(count) x plan.candidate_floats) from centers
// (count x d, row-major) and gamma.
template <typename T>
cudaError_t launch_matrix_free_candidates(const T* centers, const T* gamma, int count, int d,
                                          const MatrixFreePlan& plan, T* c_aug, cudaStream_t stream);

// One pass: for every candidate c < count and row split s,
//   out[s * count + c]        = sum over the split's rows i of phi_ic * v[i]
//   out_square[s * count + c] = sum over the split's rows i < rows of phi_ic^2   (when not null)
// v is zero on padding rows. Sums are in a fixed order: results do not depend on timing.
template <typename T>
struct MatrixFreePass {
  const T* x_aug;      // the row operand
  const T* c_aug;      // the candidate operand
  int rows;            // training rows (the rest of padded_rows is padding)
  int padded_rows;     // multiple of kMatrixFreeRows
  int count;           // candidates
  int d;
  const T* v;
  T* out;
  T* out_square;       // null: no squares
  int splits;          // row splits (see MatrixFreePlan)
  int rows_per_split;  // multiple of kMatrixFreeRows
  // Weighted rows: out_square sums square_weight_i phi^2 (padded_rows values); null: 1.
  const T* square_weight = nullptr;
};

template <typename T>
cudaError_t launch_matrix_free_pass(const MatrixFreePass<T>& pass, const MatrixFreePlan& plan,
                                    cudaStream_t stream);

// dest[c] = sum over s < splits of partial[s * count + c], in order of s.
template <typename T>
cudaError_t launch_sum_splits(const T* partial, int splits, int count, T* dest, cudaStream_t stream);

}  // namespace gpu
}  // namespace rbf
