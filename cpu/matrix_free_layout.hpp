// What the matrix-free scoring pass precomputes once per candidate set: a padded copy of X,
// the squared norms of rows and centers, and the centers, all shifted to X's column means.
//
// The shift leaves every distance unchanged but keeps ||x||^2 + ||c||^2 - 2 x.c from cancelling
// badly when the data sit far from the origin. Memory: O(n d + P d), never n x P.
#pragma once

#include <cstddef>
#include <vector>

#include "cpu/gaussian_scoring_kernel.hpp"

namespace rbf::cpu {

template <typename T>
struct MatrixFreeLayout {
  std::size_t rows_padded = 0;  // n rounded up to kGaussianRowPadding; 0: not prepared
  std::vector<T> x;             // rows_padded x d, column-major; padding rows are 0
  std::vector<T> x_norm;        // rows_padded; padding rows hold the largest finite value
  std::vector<T> centers;       // count x d, row-major
  std::vector<T> center_norm;   // count

  std::size_t bytes() const { return (x.size() + x_norm.size() + centers.size() + center_norm.size()) * sizeof(T); }
};

// From X (n x d, column-major) and the centers (count x d, row-major).
template <typename T>
MatrixFreeLayout<T> make_matrix_free_layout(const T* x, std::size_t n, std::size_t d, const T* centers,
                                            std::size_t count);

// A kernel call's inputs over `layout` (d features): rows, centers, widths and the projection
// vector; the caller sets the candidates, the residual and the outputs.
template <typename T>
GaussianTile<T> layout_tile(const MatrixFreeLayout<T>& layout, std::size_t d, const T* gamma, const T* q) {
  GaussianTile<T> t;
  t.x = layout.x.data();
  t.x_norm = layout.x_norm.data();
  t.rows_padded = layout.rows_padded;
  t.d = d;
  t.centers = layout.centers.data();
  t.center_norm = layout.center_norm.data();
  t.gamma = gamma;
  t.q = q;
  return t;
}

}  // namespace rbf::cpu
