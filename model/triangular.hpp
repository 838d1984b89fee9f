// The upper-triangular factor R of the selected basis and the back-substitution for weights.
#pragma once

#include <cstddef>
#include <vector>

namespace rbf::model {

// R stored by columns (column j holds rows 0..j), grown one column per node.
class UpperTriangular {
 public:
  explicit UpperTriangular(std::size_t expected_columns = 0) { columns_.reserve(expected_columns); }

  // Sets column j (j + 1 values: the projections h and the diagonal last). Columns are
  // set in order; setting column j again drops every later column.
  void set_column(std::size_t j, const std::vector<double>& values) {
    columns_.resize(j);
    columns_.push_back(values);
    columns_.back().resize(j + 1, 0.0);
  }

  std::size_t size() const { return columns_.size(); }
  double at(std::size_t i, std::size_t j) const { return columns_[j][i]; }

  // Solves R[0..m, 0..m] W = Theta[0..m, :] by back-substitution for the model with the
  // first m nodes (plus the bias row 0). theta and w are row-major with k columns.
  void solve(const std::vector<double>& theta, std::size_t k, std::size_t m, std::vector<double>& w) const {
    const std::size_t rows = m + 1;
    w.assign(theta.begin(), theta.begin() + static_cast<std::ptrdiff_t>(rows * k));
    // Column by column from the last: each solved row leaves the rows above it in one
    // contiguous sweep of its column. Row by row, every step strides across all the columns;
    // at 300 nodes that took longer than a GPU iteration, and the growth solves once per node.
    for (std::size_t c = rows; c-- > 0;) {
      const std::vector<double>& column = columns_[c];
      double* wc = w.data() + c * k;
      for (std::size_t j = 0; j < k; ++j) wc[j] /= column[c];
      if (k == 1) {  // the common case, as one loop the compiler vectorizes
        const double wcc = wc[0];
        for (std::size_t r = 0; r < c; ++r) w[r] -= column[r] * wcc;
        continue;
      }
      for (std::size_t r = 0; r < c; ++r) {
        const double rc = column[r];
        double* wr = w.data() + r * k;
        for (std::size_t j = 0; j < k; ++j) wr[j] -= rc * wc[j];
      }
    }
  }

 private:
  std::vector<std::vector<double>> columns_;
};

}  // namespace rbf::model
