// Launchers of the matrix-free scoring pass: z = Phi_C^T v computed from X and the candidate
// centers without ever writing Phi_C (kernels in matrix_free_kernels.cu). C++14, CUDA-only
// types, so both nvcc and the host compiler include it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace rbf {
namespace gpu {

// Candidates per block of the matrix-free kernels; the candidate operand is padded with zero
// rows to a multiple of this.
constexpr int kMatrixFreeCandidates = 256;
// Rows staged per step; the row operand is padded with zero rows to a multiple of this
// (kRowPadding is a multiple of it, so padded training rows need nothing more).
constexpr int kMatrixFreeRows = 64;

// The pass writes the exponent of each Gaussian, -L g_c ||x_i - c_c||^2 (L = log2 e,
// g_c = 1 / (2 sigma_c^2)), from two operands built once per candidate set: the rows' and the
// candidates'. Their layouts depend on the kernel the plan picked (matrix_free_kernels.cu);
// MatrixFreePlan::row_floats and candidate_floats give their sizes. phi = exp2(exponent) (the
// CUDA-core kernel clamps the exponent at 0; on tensor cores it is within rounding of 0 at most).

// How a pass is launched on this device: tensor cores or CUDA cores, its row splits, and the
// size of its operands.
struct MatrixFreePlan {
  bool tensor_cores = false;  // split-FP16 products (float, sm_80+, d <= kMatrixFreeTensorMaxD)
  int splits = 1;
  int rows_per_split = kMatrixFreeRows;
  int row_floats = 0;        // the row operand holds padded_rows x row_floats floats
  int candidate_floats = 0;  // the candidate operand holds padded_count x candidate_floats floats
  // Tensor cores: the power of two between the norm entries and the features of the operands;
  // set it from the rows with matrix_free_norm_shift before building them.
  int norm_shift = 0;
  // Tensor cores: rows scaled by 2^unit_exponent and candidates by its inverse, all of them,
  // instead of a scale per row and per candidate group (matrix_free_choose_scale sets both).
  bool unit_scale = false;
  int unit_exponent = 0;
};
// The norm shift for rows whose mean ||x||^2 is mean_row_norm2: it keeps FP16's range and
// precision for features within ~2^15 of the rows' typical size, either way.
int matrix_free_norm_shift(double mean_row_norm2);
// The largest inputs of the operands: they decide whether one scale fits all of them.
struct MatrixFreeRange {
  double max_feature = 0.0;       // max |x_if| over the training rows
  double max_row_norm2 = 0.0;     // max ||x_i||^2
  double max_gain = 0.0;          // max g_c = 1 / (2 sigma_c^2) over the candidates
  double max_gain_feature = 0.0;  // max g_c |c_cf|
  // A row with largest |feature| max_abs and squared norm norm2.
  void add_row(double max_abs, double norm2) {
    max_feature = max_abs > max_feature ? max_abs : max_feature;
    max_row_norm2 = norm2 > max_row_norm2 ? norm2 : max_row_norm2;
  }
  // A candidate with largest |center coordinate| max_abs and gain g = 1 / (2 sigma^2).
  void add_candidate(double max_abs, double gain) {
    max_gain = gain > max_gain ? gain : max_gain;
    max_gain_feature = gain * max_abs > max_gain_feature ? gain * max_abs : max_gain_feature;
  }
};
// Sets plan.unit_scale and unit_exponent for d features within `range`, after norm_shift:
// unit_scale when the row and candidate entries, balanced by one power of two, stay inside
// FP16's range and far enough from its subnormals for float32 accuracy.
void matrix_free_choose_scale(MatrixFreePlan& plan, const MatrixFreeRange& range, int d);
// Widest d the tensor-core kernel takes (its candidate operands stay in registers).
constexpr int kMatrixFreeTensorMaxD = 31;

// tensor_cores_allowed = false plans the CUDA-core kernel (to compare the two).
template <typename T>
MatrixFreePlan plan_matrix_free(int padded_rows, int count, int d, int device, bool tensor_cores_allowed = true);

// Padded candidate count of the candidate operand: a multiple of kMatrixFreeCandidates.
int matrix_free_padded_count(int count);

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
};

template <typename T>
cudaError_t launch_matrix_free_pass(const MatrixFreePass<T>& pass, const MatrixFreePlan& plan,
                                    cudaStream_t stream);

// dest[c] = sum over s < splits of partial[s * count + c], in order of s.
template <typename T>
cudaError_t launch_sum_splits(const T* partial, int splits, int count, T* dest, cudaStream_t stream);

}  // namespace gpu
}  // namespace rbf
