// The matrix-free scoring kernel: for a tile of candidates, z_c = phi_c^T q (and on a reset
// n_c = ||phi_c||^2, g_c = phi_c^T E) with every Gaussian computed on the fly from X and the
// centers and consumed in registers; Phi_C is never written beyond one small row block.
//
// The exponent -gamma (||x||^2 + ||c||^2 - 2 x.c), clamped at 0, is taken in base 2 (log2 e
// folded into gamma), so the work is a GEMM-shaped product plus one vectorized exp2 per
// Gaussian. Each variant (simd_variant.hpp) sums in a fixed order that depends on row and
// candidate indices alone, so results do not depend on how candidates are grouped into tiles
// or on the thread count; variants differ in rounding.
#pragma once

#include <cstddef>

#include "cpu/simd_variant.hpp"

namespace rbf::cpu {

// Rows come padded to a multiple of this, so that no kernel needs a partial vector.
constexpr std::size_t kGaussianRowPadding = 64;

// One call's inputs and outputs (plain pointers; nothing is owned).
template <typename S>
struct GaussianTile {
  // Rows, padded to rows_padded (a multiple of kGaussianRowPadding).
  const S* x = nullptr;       // rows_padded x d, column-major; padding rows are 0
  const S* x_norm = nullptr;  // ||x_i||^2; padding rows hold a huge value, so their Gaussians are 0
  std::size_t rows_padded = 0, d = 0;
  // Every candidate, and which of them this call scores.
  const S* centers = nullptr;      // count x d, row-major, in the same coordinates as x
  const S* center_norm = nullptr;  // ||c||^2
  const S* gamma = nullptr;        // 1 / (2 sigma^2)
  const std::size_t* candidates = nullptr;  // indices into the above
  std::size_t tile = 0;                     // how many
  // The projection vector and, for the statistics, the residual; both zero in padding rows.
  const S* q = nullptr;  // rows_padded
  const S* e = nullptr;  // rows_padded x k, column-major; null: z only
  std::size_t k = 0;
  // Weighted rows: n_c = sum_i square_weight_i phi_ic^2 (rows_padded, 0 in padding); null: 1.
  const S* square_weight = nullptr;
  // Outputs, per scored candidate, overwritten: z (tile); with e also n (tile) and g (tile x k,
  // candidate-major). Summed in double across row blocks.
  double* z = nullptr;
  double* n = nullptr;
  double* g = nullptr;
};

// Scores one tile with the given variant, which must be supported (simd_variant_supported).
template <typename S>
void score_gaussian_tile(SimdVariant variant, const GaussianTile<S>& tile);

// out[i] = 2^in[i] for i < count, with the kernels' vectorized exp2 (for tests).
template <typename S>
void exp2_block(SimdVariant variant, const S* in, S* out, std::size_t count);

}  // namespace rbf::cpu
