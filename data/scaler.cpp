// Per-column standardization fitted on chosen rows; constant columns keep scale 1.
#include "data/scaler.hpp"

#include <algorithm>
#include <cmath>

namespace rbf::data {

namespace {

// Below this spread, relative to the column's largest magnitude, a column is treated as
// constant: dividing by a spread made of rounding noise would blow it up into meaningless
// large values. Relative, so that data in units of 1e-30 is as informative as data near 1.
constexpr double kConstantTolerance = 1e-12;

}  // namespace

Standardizer Standardizer::fit(const double* x, std::size_t rows, std::size_t cols,
                               const std::vector<std::size_t>& row_indices) {
  const bool all_rows = row_indices.empty();
  const std::size_t count = all_rows ? rows : row_indices.size();
  const auto row_at = [&](std::size_t k) { return x + (all_rows ? k : row_indices[k]) * cols; };

  Standardizer s;
  s.mean.assign(cols, 0.0);
  s.scale.assign(cols, 1.0);
  s.constant.assign(cols, true);
  if (count == 0) return s;  // nothing to learn from: the identity, every column constant

  // Two passes (mean, then squared deviations) stay accurate when |mean| >> spread,
  // where the one-pass sum-of-squares formula cancels catastrophically.
  std::vector<double> largest(cols, 0.0);  // largest |value| per column
  for (std::size_t k = 0; k < count; ++k) {
    const double* row = row_at(k);
    for (std::size_t j = 0; j < cols; ++j) {
      s.mean[j] += row[j];
      largest[j] = std::max(largest[j], std::abs(row[j]));
    }
  }
  for (double& m : s.mean) m /= static_cast<double>(count);
  // Deviations are measured in units of the column's largest magnitude, so that their squares
  // neither overflow (values near 1e200) nor underflow (values near 1e-200).
  std::vector<double> squares(cols, 0.0);
  for (std::size_t k = 0; k < count; ++k) {
    const double* row = row_at(k);
    for (std::size_t j = 0; j < cols; ++j) {
      if (largest[j] == 0.0) continue;
      const double d = (row[j] - s.mean[j]) / largest[j];
      squares[j] += d * d;
    }
  }
  for (std::size_t j = 0; j < cols; ++j) {
    const double std_dev = largest[j] * std::sqrt(squares[j] / static_cast<double>(count));
    const bool constant = !(std_dev > kConstantTolerance * largest[j]);
    s.constant[j] = constant;
    s.scale[j] = constant ? 1.0 : std_dev;
  }
  return s;
}

Standardizer Standardizer::identity(std::size_t cols) {
  Standardizer s;
  s.mean.assign(cols, 0.0);
  s.scale.assign(cols, 1.0);
  s.constant.assign(cols, false);
  return s;
}

std::vector<double> Standardizer::inverse_scales() const {
  std::vector<double> inverse_scale(columns());
  for (std::size_t j = 0; j < inverse_scale.size(); ++j) inverse_scale[j] = 1.0 / scale[j];
  return inverse_scale;
}

void Standardizer::transform(double* x, std::size_t rows) const {
  const std::vector<double> inverse_scale = inverse_scales();
  for (std::size_t i = 0; i < rows; ++i) transform_row(x + i * columns(), x + i * columns(), inverse_scale);
}

void Standardizer::inverse_transform(double* x, std::size_t rows) const {
  const std::size_t cols = columns();
  for (std::size_t i = 0; i < rows; ++i) {
    double* row = x + i * cols;
    for (std::size_t j = 0; j < cols; ++j) row[j] = row[j] * scale[j] + mean[j];
  }
}

}  // namespace rbf::data
