// The ridge fit of the linear terms, its penalty chosen by generalized cross-validation.
#include "model/linear_terms.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>

namespace rbf::model {

std::vector<double> linear_ridge_grid() {
  std::vector<double> grid{0.0};
  for (int i = 0; i <= 16; ++i) grid.push_back(std::pow(10.0, -6.0 + 0.5 * i));
  return grid;
}

LinearFit fit_linear_terms(const std::vector<double>& x, std::size_t n, std::size_t d, const std::vector<double>& y,
                           std::size_t k, const std::vector<double>& weights) {
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto ni = static_cast<Eigen::Index>(n), di = static_cast<Eigen::Index>(d), ki = static_cast<Eigen::Index>(k);
  RowMajor yc = Eigen::Map<const RowMajor>(y.data(), ni, ki);
  RowMajor xw;  // the weighted rows; unweighted fits read x in place
  if (weights.empty()) {
    yc.rowwise() -= yc.colwise().mean();
  } else {
    // Weighted least squares: both sides centred on their weighted means, each row then scaled
    // by the square root of its weight (the weights have mean 1, so `rows` below still holds).
    const Eigen::Map<const Eigen::VectorXd> w(weights.data(), ni);
    xw = Eigen::Map<const RowMajor>(x.data(), ni, di);
    xw.rowwise() -= (w.transpose() * xw) / static_cast<double>(n);
    yc.rowwise() -= (w.transpose() * yc) / static_cast<double>(n);
    const Eigen::VectorXd root = w.cwiseSqrt();
    xw = root.asDiagonal() * xw;
    yc = root.asDiagonal() * yc;
  }
  const Eigen::Map<const RowMajor> xm(weights.empty() ? x.data() : xw.data(), ni, di);
  Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(di, di);
  gram.selfadjointView<Eigen::Lower>().rankUpdate(xm.transpose());
  gram = gram.selfadjointView<Eigen::Lower>();
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(gram);
  const Eigen::VectorXd s = eig.eigenvalues().cwiseMax(0.0);
  const Eigen::MatrixXd g = eig.eigenvectors().transpose() * (xm.transpose() * yc);  // d x k
  // Eigenvalues at rounding level are directions of no spread (a constant column, or
  // columns that repeat one another): least squares leaves them out rather than divide by noise.
  const double floor = s.size() > 0 ? s.maxCoeff() * 1e-12 * static_cast<double>(d) : 0.0;
  const double total = yc.squaredNorm();
  const double rows = static_cast<double>(n);

  LinearFit best;
  double best_score = std::numeric_limits<double>::infinity();
  for (double value : linear_ridge_grid()) {
    const double alpha = value * rows;
    double sse = total, trace = 0;
    for (Eigen::Index i = 0; i < di; ++i) {
      if (!(s(i) > floor)) continue;
      const double f = 1.0 / (s(i) + alpha);
      trace += s(i) * f;
      // ||Yc - X W||^2 = ||Yc||^2 - sum_i g_i^2 (s_i + 2 alpha) / (s_i + alpha)^2 in the eigenbasis.
      sse -= g.row(i).squaredNorm() * (s(i) + 2 * alpha) * f * f;
    }
    const double dof = rows - 1 - trace;  // the mean taken out of Yc is one more parameter
    if (!(dof > 0)) continue;
    const double score = std::max(sse, 0.0) / (dof * dof);
    if (score < best_score) {  // strictly lower: ties keep the smaller penalty
      best_score = score;
      best.alpha = value;
    }
  }
  const double alpha = best.alpha * rows;
  Eigen::MatrixXd z = g;
  for (Eigen::Index i = 0; i < di; ++i) z.row(i) *= s(i) > floor ? 1.0 / (s(i) + alpha) : 0.0;
  const Eigen::MatrixXd w = eig.eigenvectors() * z;
  best.weights.resize(d * k);
  for (std::size_t f = 0; f < d; ++f)
    for (std::size_t j = 0; j < k; ++j)
      best.weights[f * k + j] = w(static_cast<Eigen::Index>(f), static_cast<Eigen::Index>(j));
  return best;
}

void add_linear_terms(const double* x, std::size_t rows, std::size_t d, const std::vector<double>& w, std::size_t k,
                      double sign, double* out) {
  if (w.empty()) return;
  for (std::size_t i = 0; i < rows; ++i) {
    const double* xi = x + i * d;
    double* oi = out + i * k;
    for (std::size_t f = 0; f < d; ++f) {
      const double v = sign * xi[f];
      const double* wf = w.data() + f * k;
      for (std::size_t j = 0; j < k; ++j) oi[j] += v * wf[j];
    }
  }
}

bool linear_terms_wanted(const Config& config, std::size_t rows, std::size_t features) {
  switch (config.trainer.linear_terms) {
    case LinearTerms::on:
      return true;
    case LinearTerms::off:
      return false;
    case LinearTerms::auto_select:
      break;
  }
  const double d = static_cast<double>(features);
  return features <= config.candidates.pool * config.candidates.width_factors.size() &&
         static_cast<double>(rows) * d * d <= kLinearAutoMaxWork;
}

}  // namespace rbf::model
