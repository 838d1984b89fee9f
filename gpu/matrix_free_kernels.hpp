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

// The pass writes the exponent of each Gaussian as one inner product of augmented vectors:
//   rows       x~_i = [x_i, 1, ||x_i||^2, 0...]
//   candidates c~_c = L g_c [2 c, -||c||^2, -1, 0...]      (L = log2 e, g_c = 1 / (2 sigma_c^2))
// so x~_i . c~_c = -L g_c ||x_i - c_c||^2 and phi = exp2(min(0, x~ . c~)). `stride` is the
// padded length of both (see matrix_free_stride).
int matrix_free_stride(int d);

// x~ (row-major, padded_rows x stride) from X (feature-major, d x ldx); rows >= rows are 0.
template <typename T>
cudaError_t launch_matrix_free_rows(const T* xt, std::size_t ldx, int rows, int padded_rows, int d,
                                    int stride, T* x_aug, cudaStream_t stream);

// c~ (row-major, padded_count x stride) from centers (count x d, row-major) and gamma.
template <typename T>
cudaError_t launch_matrix_free_candidates(const T* centers, const T* gamma, int count,
                                          int padded_count, int d, int stride, T* c_aug,
                                          cudaStream_t stream);

// One pass: for every candidate c < count and row split s,
//   out[s * count + c]        = sum over the split's rows i of phi_ic * v[i]
//   out_square[s * count + c] = sum over the split's rows i < rows of phi_ic^2   (when not null)
// v is zero on padding rows. Sums are in a fixed order: results do not depend on timing.
template <typename T>
struct MatrixFreePass {
  const T* x_aug;      // padded_rows x stride
  const T* c_aug;      // padded_count x stride
  int rows;            // training rows (the rest of padded_rows is padding)
  int padded_rows;     // multiple of kMatrixFreeRows
  int count;           // candidates
  int stride;
  int d;
  const T* v;
  T* out;
  T* out_square;       // null: no squares
  int splits;          // row splits (see MatrixFreePlan)
  int rows_per_split;  // multiple of kMatrixFreeRows
};

// How a pass is launched on this device: tensor cores or CUDA cores, and its row splits.
struct MatrixFreePlan {
  bool tensor_cores = false;  // 3xTF32 products (float, sm_80+, d <= 30)
  int splits = 1;
  int rows_per_split = kMatrixFreeRows;
};
// tensor_cores_allowed = false plans the CUDA-core kernel (to compare the two).
template <typename T>
MatrixFreePlan plan_matrix_free(int padded_rows, int count, int d, int device, bool tensor_cores_allowed = true);

template <typename T>
cudaError_t launch_matrix_free_pass(const MatrixFreePass<T>& pass, const MatrixFreePlan& plan,
                                    cudaStream_t stream);

// dest[c] = sum over s < splits of partial[s * count + c], in order of s.
template <typename T>
cudaError_t launch_sum_splits(const T* partial, int splits, int count, T* dest, cudaStream_t stream);

}  // namespace gpu
}  // namespace rbf
