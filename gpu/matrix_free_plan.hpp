// How the matrix-free scoring pass runs on a device: tensor or CUDA cores, its row splits and
// the sizes and scales of its operands, decided on the host (matrix_free_plan.cpp) before any
// launch. C++14 without any CUDA header, so the kernels' files (nvcc) include it as well.
#pragma once

namespace rbf {
namespace gpu {

// Candidates per block of the matrix-free kernels; the candidate operand is padded with zero
// rows to a multiple of this.
constexpr int kMatrixFreeCandidates = 256;
// Rows staged per step; the row operand is padded with zero rows to a multiple of this
// (kRowPadding is a multiple of it, so padded training rows need nothing more).
constexpr int kMatrixFreeRows = 64;
// Widest d the register tensor-core kernel takes (its candidate operands stay in registers);
// the K-tiled kernel (matrix_free_wide_kernels.cu) takes the wider rows up to
// kMatrixFreeWideMaxD, the CUDA-core kernel any d.
constexpr int kMatrixFreeTensorMaxD = 31;
constexpr int kMatrixFreeWideMaxD = 1024;
// L = log2 e: the operands carry it, so that each Gaussian is one exp2.
constexpr double kLog2e = 1.4426950408889634;

// How a pass is launched on this device: tensor cores or CUDA cores, its row splits, and the
// size of its operands.
struct MatrixFreePlan {
  bool tensor_cores = false;  // split-FP16 products (float, sm_80+, d <= kMatrixFreeWideMaxD)
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

// tensor_cores_allowed = false plans the CUDA-core kernel (to compare the two).
template <typename T>
MatrixFreePlan plan_matrix_free(int padded_rows, int count, int d, int device, bool tensor_cores_allowed = true);

// Padded candidate count of the candidate operand: a multiple of kMatrixFreeCandidates.
int matrix_free_padded_count(int count);

}  // namespace gpu
}  // namespace rbf
