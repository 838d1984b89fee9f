// Ridge on the output weights from the OLS factors: one SVD of R's node block, any penalty.
#include "model/output_ridge.hpp"

#include <cmath>

namespace rbf::model {

OutputRidge::OutputRidge(const UpperTriangular& r, const std::vector<double>& theta, std::size_t k, std::size_t m)
    : r_(r), theta_(theta), k_(k), m_(m) {
  if (m == 0) return;
  const auto mi = static_cast<Eigen::Index>(m);
  Eigen::MatrixXd r1 = Eigen::MatrixXd::Zero(mi, mi);
  for (std::size_t j = 1; j <= m; ++j)
    for (std::size_t i = 1; i <= j; ++i) r1(static_cast<Eigen::Index>(i - 1), static_cast<Eigen::Index>(j - 1)) = r.at(i, j);
  Eigen::MatrixXd theta1(mi, static_cast<Eigen::Index>(k));
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < k; ++j) theta1(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = theta[(i + 1) * k + j];
  Eigen::BDCSVD<Eigen::MatrixXd> svd(r1, Eigen::ComputeThinU | Eigen::ComputeThinV);
  s_ = svd.singularValues();
  v_ = svd.matrixV();
  ut_ = svd.matrixU().transpose() * theta1;
}

std::vector<double> OutputRidge::weights(double alpha) const {
  std::vector<double> w;
  if (alpha <= 0 || m_ == 0) {
    r_.solve(theta_, k_, m_, w);
    return w;
  }
  // W = V diag(s / (s^2 + alpha)) U^T Theta_1: the ridge solution of the node block.
  Eigen::MatrixXd z = ut_;
  for (Eigen::Index i = 0; i < z.rows(); ++i) z.row(i) *= s_(i) / (s_(i) * s_(i) + alpha);
  const Eigen::MatrixXd nodes = v_ * z;
  w.assign((m_ + 1) * k_, 0.0);
  for (std::size_t j = 0; j < k_; ++j) {
    // The bias meets row 0 exactly: r00 b + sum_c r0c W_c = theta_0.
    double s = theta_[j];
    for (std::size_t c = 1; c <= m_; ++c) {
      const double wc = nodes(static_cast<Eigen::Index>(c - 1), static_cast<Eigen::Index>(j));
      w[c * k_ + j] = wc;
      s -= r_.at(0, c) * wc;
    }
    w[j] = s / r_.at(0, 0);
  }
  return w;
}

std::vector<double> output_ridge_grid() {
  std::vector<double> grid{0.0};
  for (int i = 0; i <= 14; ++i) grid.push_back(std::pow(10.0, -7.0 + 0.5 * i));
  return grid;
}

}  // namespace rbf::model
