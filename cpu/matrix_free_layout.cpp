// Builds the matrix-free scoring pass's inputs (matrix_free_layout.hpp).
#include "cpu/matrix_free_layout.hpp"

#include <limits>

#include "cpu/gaussian_scoring_kernel.hpp"

namespace rbf::cpu {

template <typename T>
MatrixFreeLayout<T> make_matrix_free_layout(const T* x, std::size_t n, std::size_t d, const T* centers,
                                            std::size_t count) {
  MatrixFreeLayout<T> out;
  out.rows_padded = (n + kGaussianRowPadding - 1) / kGaussianRowPadding * kGaussianRowPadding;
  const std::size_t np = out.rows_padded;

  std::vector<double> mean(d, 0.0);
  for (std::size_t f = 0; f < d; ++f) {
    for (std::size_t i = 0; i < n; ++i) mean[f] += static_cast<double>(x[f * n + i]);
    mean[f] /= static_cast<double>(n);
  }

  out.x.assign(np * d, T(0));
  std::vector<double> norm(n, 0.0);
  for (std::size_t f = 0; f < d; ++f) {
    for (std::size_t i = 0; i < n; ++i) {
      const T v = static_cast<T>(static_cast<double>(x[f * n + i]) - mean[f]);
      out.x[f * np + i] = v;
      norm[i] += static_cast<double>(v) * static_cast<double>(v);
    }
  }
  // The padding rows' huge norm puts them infinitely far from every center: their Gaussians are 0.
  out.x_norm.assign(np, std::numeric_limits<T>::max());
  for (std::size_t i = 0; i < n; ++i) out.x_norm[i] = static_cast<T>(norm[i]);

  out.centers.resize(count * d);
  out.center_norm.resize(count);
  for (std::size_t c = 0; c < count; ++c) {
    double s = 0;
    for (std::size_t f = 0; f < d; ++f) {
      const T v = static_cast<T>(static_cast<double>(centers[c * d + f]) - mean[f]);
      out.centers[c * d + f] = v;
      s += static_cast<double>(v) * static_cast<double>(v);
    }
    out.center_norm[c] = static_cast<T>(s);
  }
  return out;
}

template MatrixFreeLayout<float> make_matrix_free_layout(const float*, std::size_t, std::size_t, const float*,
                                                         std::size_t);
template MatrixFreeLayout<double> make_matrix_free_layout(const double*, std::size_t, std::size_t, const double*,
                                                          std::size_t);

}  // namespace rbf::cpu
