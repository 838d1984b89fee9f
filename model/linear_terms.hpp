// Linear terms beside the Gaussians: a ridge fit of the standardized targets on the
// standardized inputs, made before growth so that the nodes fit only what it leaves.
#pragma once

#include <cstddef>
#include <vector>

#include "model/config.hpp"

namespace rbf::model {

struct LinearFit {
  std::vector<double> weights;  // d x k, row-major
  double alpha = 0;             // the chosen penalty, relative to the rows (alpha = value * n)
};

// The penalties tried, relative to the rows: 0 and 1e-6 to 100 in half decades.
std::vector<double> linear_ridge_grid();

// W minimizing ||Yc - X W||^2 + alpha ||W||^2, where X (n x d, row-major) has zero column
// means (standardized on these rows) and Yc is Y (n x k) less its column means; no intercept
// is returned, since the network's bias is fitted after it. The penalty is the grid value with
// the lowest generalized cross-validation score (Golub, Heath and Wahba), which needs no rows
// beyond the training ones: one eigendecomposition of X^T X gives every value of the grid.
// Directions of X with no spread (constant columns) get no weight. With `weights` (n values of
// mean 1) the squared errors are weighted and X and Y centred on their weighted means.
LinearFit fit_linear_terms(const std::vector<double>& x, std::size_t n, std::size_t d, const std::vector<double>& y,
                           std::size_t k, const std::vector<double>& weights = {});

// out (rows x k) += sign * X W for the row-major rows x d matrix x.
void add_linear_terms(const double* x, std::size_t rows, std::size_t d, const std::vector<double>& w, std::size_t k,
                      double sign, double* out);

// The largest rows x features^2 for which auto fits linear terms: forming X^T X then takes
// about a second on one core of the machines measured (2.6e10 in 1.9 s on 2 cores).
inline constexpr double kLinearAutoMaxWork = 1e10;

// Whether a run with `config` fits linear terms on `rows` training rows of `features`
// columns: the configured on or off; auto = on unless the features outnumber the candidates
// (pool x width factors) or rows x features^2 exceeds kLinearAutoMaxWork. Below the first
// bound the fit (rows x features^2) costs less than evaluating the candidate columns once
// (rows x candidates x features), which every run does; the second keeps it small beside a
// GPU, which does that evaluation far faster than the CPU fits. docs/ACCURACY.md has the scores.
bool linear_terms_wanted(const Config& config, std::size_t rows, std::size_t features);

}  // namespace rbf::model
