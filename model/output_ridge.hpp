// Ridge regression on the output weights of a grown model, from its OLS factors R and Q^T Y.
#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/Dense>

#include "model/triangular.hpp"

namespace rbf::model {

// With the first m nodes of a model whose basis [1, Phi] = Q R, the weights that minimize
//   ||Y - 1 b - Phi W||^2 + alpha ||W||^2        (the bias b is not penalized)
// for any alpha >= 0. ||Y - [1 Phi] w||^2 = ||Theta - R w||^2 + const with Theta = Q^T Y, so
// only R and Theta are needed: the bias row can always be met exactly, which leaves
// min ||Theta_1 - R_1 W||^2 + alpha ||W||^2 over the node block R_1, solved for every alpha
// from one SVD of R_1 (m x m).
class OutputRidge {
 public:
  // r: R with at least m + 1 columns; theta: row-major, at least (m + 1) x k.
  OutputRidge(const UpperTriangular& r, const std::vector<double>& theta, std::size_t k, std::size_t m);

  // Row-major (m + 1) x k weights, the bias row first (the layout of UpperTriangular::solve).
  // alpha = 0 gives the least-squares weights by back-substitution.
  std::vector<double> weights(double alpha) const;

 private:
  const UpperTriangular& r_;
  const std::vector<double>& theta_;
  std::size_t k_, m_;
  Eigen::VectorXd s_;   // singular values of R_1
  Eigen::MatrixXd v_;   // right singular vectors of R_1
  Eigen::MatrixXd ut_;  // U^T Theta_1, m x k
};

// The penalties output_ridge 'auto' tries, relative to the training rows (alpha = value * n,
// so that the penalty weighs like the mean squared error): 0 and 1e-7 to 1 in half decades.
std::vector<double> output_ridge_grid();

}  // namespace rbf::model
