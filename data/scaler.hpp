// Per-column standardization fitted on training rows only; constant columns never divide by zero.
#pragma once

#include <cstddef>
#include <vector>

namespace rbf::data {

struct Standardizer {
  std::vector<double> mean;   // per column
  std::vector<double> scale;  // per column standard deviation; 1 for constant columns
  std::vector<bool> constant; // true where the column had zero spread on the fitted rows

  std::size_t columns() const { return mean.size(); }

  // Fits on the rows `row_indices` of the row-major `rows x cols` matrix `x`
  // (all rows when `row_indices` is empty).
  static Standardizer fit(const double* x, std::size_t rows, std::size_t cols,
                          const std::vector<std::size_t>& row_indices = {});
  // Identity transform (mean 0, scale 1) for `cols` columns.
  static Standardizer identity(std::size_t cols);

  // In place: x[i][j] = (x[i][j] - mean[j]) / scale[j].
  void transform(double* x, std::size_t rows) const;
  // 1 / scale per column, for transform_row.
  std::vector<double> inverse_scales() const;
  // One row: out[j] = (in[j] - mean[j]) * inverse_scale[j], transform's arithmetic (out may be in).
  void transform_row(const double* in, double* out, const std::vector<double>& inverse_scale) const {
    for (std::size_t j = 0; j < inverse_scale.size(); ++j) out[j] = (in[j] - mean[j]) * inverse_scale[j];
  }
  // In place: x[i][j] = x[i][j] * scale[j] + mean[j].
  void inverse_transform(double* x, std::size_t rows) const;
};

}  // namespace rbf::data
