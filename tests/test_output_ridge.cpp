// Ridge on the output weights from the OLS factors, against the normal equations on Phi.
#include <doctest/doctest.h>

#include <Eigen/Dense>

#include <cmath>
#include <random>
#include <vector>

#include "data/split.hpp"
#include "model/output_ridge.hpp"
#include "model/trainer.hpp"

using rbf::model::OutputRidge;
using rbf::model::UpperTriangular;

namespace {

// A basis [1, Phi] (n x (m + 1)) and targets Y (n x k) with their R and Theta = Q^T Y in the
// trainer's layout: R by columns, Theta row-major.
struct RidgeProblem {
  Eigen::MatrixXd basis, y;
  UpperTriangular r;
  std::vector<double> theta;
};

RidgeProblem make_ridge_problem(int n, int m, int k, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal;
  RidgeProblem p;
  p.basis = Eigen::MatrixXd::Ones(n, m + 1);
  for (int i = 0; i < n; ++i)
    for (int j = 1; j <= m; ++j) p.basis(i, j) = std::exp(-0.5 * normal(gen) * normal(gen));
  p.y = Eigen::MatrixXd(n, k);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) p.y(i, j) = 3.0 + p.basis(i, 1 + (i + j) % m) + 0.3 * normal(gen);
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(p.basis);
  const Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(n, m + 1);
  const Eigen::MatrixXd r = q.transpose() * p.basis;
  const Eigen::MatrixXd theta = q.transpose() * p.y;
  for (int j = 0; j <= m; ++j) {
    std::vector<double> column(static_cast<std::size_t>(j) + 1);
    for (int i = 0; i <= j; ++i) column[static_cast<std::size_t>(i)] = r(i, j);
    p.r.set_column(static_cast<std::size_t>(j), column);
  }
  for (int i = 0; i <= m; ++i)
    for (int j = 0; j < k; ++j) p.theta.push_back(theta(i, j));
  return p;
}

// min ||Y - B w||^2 + alpha ||w without the bias||^2 by its normal equations.
Eigen::MatrixXd normal_equations(const Eigen::MatrixXd& basis, const Eigen::MatrixXd& y, double alpha) {
  Eigen::MatrixXd a = basis.transpose() * basis;
  for (int j = 1; j < a.cols(); ++j) a(j, j) += alpha;
  return a.ldlt().solve(basis.transpose() * y);
}

double max_difference(const std::vector<double>& w, const Eigen::MatrixXd& expected) {
  double worst = 0;
  for (int i = 0; i < expected.rows(); ++i)
    for (int j = 0; j < expected.cols(); ++j)
      worst = std::max(worst, std::abs(w[static_cast<std::size_t>(i * expected.cols() + j)] - expected(i, j)));
  return worst;
}

}  // namespace

TEST_CASE("output ridge: the penalized weights solve the normal equations, the bias unpenalized") {
  const int n = 200, m = 12, k = 2;
  const RidgeProblem p = make_ridge_problem(n, m, k, 7);
  const OutputRidge ridge(p.r, p.theta, k, m);
  for (double alpha : {1e-4, 0.1, 3.0, 200.0}) {
    CAPTURE(alpha);
    CHECK(max_difference(ridge.weights(alpha), normal_equations(p.basis, p.y, alpha)) < 1e-8);
  }
}

TEST_CASE("output ridge: no penalty is least squares, a huge one leaves the mean") {
  const int n = 150, m = 8, k = 1;
  const RidgeProblem p = make_ridge_problem(n, m, k, 3);
  const OutputRidge ridge(p.r, p.theta, k, m);
  CHECK(max_difference(ridge.weights(0), normal_equations(p.basis, p.y, 0)) < 1e-8);
  const std::vector<double> flat = ridge.weights(1e12);
  for (int j = 1; j <= m; ++j) CHECK(std::abs(flat[static_cast<std::size_t>(j)]) < 1e-6);
  CHECK(flat[0] == doctest::Approx(p.y.mean()).epsilon(1e-6));
}

TEST_CASE("output ridge: a prefix of the nodes uses only its own block of R") {
  const int n = 120, m = 10, k = 1, prefix = 4;
  const RidgeProblem p = make_ridge_problem(n, m, k, 11);
  const OutputRidge ridge(p.r, p.theta, k, prefix);
  const Eigen::MatrixXd expected = normal_equations(p.basis.leftCols(prefix + 1), p.y, 0.5);
  const std::vector<double> w = ridge.weights(0.5);
  CHECK(w.size() == static_cast<std::size_t>(prefix + 1));
  CHECK(max_difference(w, expected) < 1e-8);
}

TEST_CASE("output ridge: the grid starts at least squares and rises") {
  const std::vector<double> grid = rbf::model::output_ridge_grid();
  REQUIRE(grid.size() > 2);
  CHECK(grid.front() == 0);
  for (std::size_t i = 1; i < grid.size(); ++i) CHECK(grid[i] > grid[i - 1]);
}

namespace {

// Noisy regression with more nodes than the signal needs: least squares overfits.
rbf::data::Dataset noisy_regression(std::size_t n, std::uint64_t seed) {
  rbf::data::Dataset ds;
  ds.source = "noisy";
  ds.rows = n;
  ds.features = 3;
  ds.targets = 1;
  rbf::data::SplitMix64 rng(seed);
  for (std::size_t i = 0; i < n * 3; ++i) ds.x.push_back(rng.uniform() * 2 - 1);
  for (std::size_t i = 0; i < n; ++i) ds.y.push_back(std::sin(2 * ds.x[i * 3]) + 0.8 * rng.normal());
  ds.feature_names = {"a", "b", "c"};
  ds.target_names = {"y"};
  return ds;
}

rbf::model::Config overfitting_config(double output_ridge) {
  rbf::model::Config c;
  c.data.validation = 0.3;
  c.data.folds = 0;  // the penalty chosen on hold-out rows is what is tested
  c.stopping.patience = 0;  // grow every node: the kept count is where validation was best
  c.stopping.max_nodes = 60;
  c.trainer.precision = rbf::model::Precision::float64;
  c.trainer.threads = 2;
  c.trainer.output_ridge = output_ridge;
  // The penalty on the nodes' weights is what is tested: without linear terms beside them the
  // nodes fit the whole target.
  c.trainer.linear_terms = rbf::model::LinearTerms::off;
  c.logging.progress = false;
  c.backend.kind = rbf::model::BackendKind::cpu;
  return c;
}

double squared_norm(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return s;
}

}  // namespace

TEST_CASE("output ridge: auto keeps the grown nodes and never scores worse on validation") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    CAPTURE(seed);
    const rbf::data::Dataset ds = noisy_regression(300, seed);
    const rbf::model::TrainResult ls = rbf::model::train(ds, overfitting_config(0));
    const rbf::model::TrainResult ridge = rbf::model::train(ds, overfitting_config(rbf::model::kOutputRidgeAuto));
    REQUIRE(ls.network.nodes() > 0);
    CHECK(ridge.network.centers == ls.network.centers);
    CHECK(ridge.network.widths == ls.network.widths);
    CHECK(ls.output_ridge == 0);
    CHECK(ridge.best_val_rmse <= ls.best_val_rmse);
    // What the trainer reports is what the saved network scores on the validation rows.
    CHECK(ridge.validation_scores.rmse == doctest::Approx(ridge.best_val_rmse).epsilon(1e-6));
    if (ridge.output_ridge > 0) {
      CHECK(ridge.best_val_rmse < ls.best_val_rmse);
      CHECK(squared_norm(ridge.network.weights) < squared_norm(ls.network.weights));
      CHECK(ridge.final_train_rmse > ls.final_train_rmse);
    } else {
      CHECK(ridge.network.weights == ls.network.weights);
    }
  }
}

TEST_CASE("output ridge: a fixed penalty applies without validation, and a refit keeps the chosen one") {
  const rbf::data::Dataset ds = noisy_regression(200, 5);
  rbf::model::Config fixed = overfitting_config(1e9);
  fixed.data.validation = 0;
  fixed.stopping.max_nodes = 10;
  const rbf::model::TrainResult flat = rbf::model::train(ds, fixed);
  CHECK(flat.output_ridge == 1e9);
  CHECK(squared_norm(flat.network.weights) < 1e-12);

  rbf::model::Config refit = overfitting_config(rbf::model::kOutputRidgeAuto);
  refit.stopping.refit = true;
  const rbf::model::TrainResult again = rbf::model::train(ds, refit);
  REQUIRE(again.refit.done);
  rbf::model::Config same = refit;
  same.stopping.refit = false;
  same.data.validation = 0;
  same.stopping.max_nodes = again.network.nodes();
  same.trainer.output_ridge = again.output_ridge;
  // The refit is a growth on every row with the penalty validation chose.
  CHECK(rbf::model::train(ds, same).network.weights == again.network.weights);
}
