// Tests of average_networks: the averaged network predicts the mean of its members, and
// members that do not share a standardization are refused.
#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "data/errors.hpp"
#include "model/network.hpp"
#include "model/network_average.hpp"

using rbf::model::Network;

namespace {

// A regression network of 2 inputs and 2 outputs in a fixed standardization, with `nodes`
// nodes drawn from `seed`, with or without linear terms.
Network member(std::size_t nodes, unsigned seed, bool linear) {
  Network n;
  n.task = rbf::data::Task::regression;
  n.inputs = 2;
  n.outputs = 2;
  n.feature_names = {"a", "b"};
  n.target_names = {"y", "z"};
  n.x_scaler.mean = {1.0, -2.0};
  n.x_scaler.scale = {0.5, 3.0};
  n.x_scaler.constant = {false, false};
  n.y_scaler.mean = {10.0, -1.0};
  n.y_scaler.scale = {2.0, 0.25};
  n.y_scaler.constant = {false, false};
  double v = 0.1 * seed;
  auto next = [&v] {
    v = v * 1.7 + 0.31;
    v -= static_cast<long>(v);
    return v * 2 - 1;
  };
  for (std::size_t j = 0; j < nodes; ++j) {
    n.centers.push_back(next());
    n.centers.push_back(next());
    n.widths.push_back(0.5 + 0.5 * (next() + 1));
    n.weights.push_back(next());
    n.weights.push_back(next());
  }
  n.bias = {next(), next()};
  if (linear) n.linear = {next(), next(), next(), next()};
  return n;
}

std::vector<double> predictions(const Network& n, const std::vector<double>& x) {
  std::vector<double> out;
  n.predict(x.data(), x.size() / n.inputs, out);
  return out;
}

}  // namespace

TEST_CASE("average_networks: the mean of the members' predictions, linear terms in some of them") {
  const std::vector<Network> members{member(4, 1, true), member(3, 2, false), member(5, 3, true)};
  const Network avg = rbf::model::average_networks(members);
  CHECK(avg.nodes() == 12);
  CHECK(avg.linear.size() == 4);
  const std::vector<double> x{1.0, -2.0, 0.3, 4.0, 2.5, -7.0, 1.1, 0.0};
  std::vector<double> mean(8, 0.0);
  for (const Network& m : members) {
    const std::vector<double> p = predictions(m, x);
    for (std::size_t i = 0; i < p.size(); ++i) mean[i] += p[i] / 3.0;
  }
  const std::vector<double> got = predictions(avg, x);
  REQUIRE(got.size() == mean.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(mean[i]).epsilon(1e-12));
}

TEST_CASE("average_networks: one member is itself") {
  const Network one = member(4, 5, true);
  const Network avg = rbf::model::average_networks({one});
  CHECK(avg.centers == one.centers);
  CHECK(avg.weights == one.weights);
  CHECK(avg.bias == one.bias);
  CHECK(avg.linear == one.linear);
}

TEST_CASE("average_networks: members in another standardization, shape or task are refused") {
  const Network a = member(2, 1, false);
  Network b = member(2, 2, false);
  b.x_scaler.mean[0] += 1e-9;
  CHECK_THROWS_AS(rbf::model::average_networks({a, b}), rbf::RuntimeError);
  Network c = member(2, 2, false);
  c.y_scaler.scale[1] *= 2;
  CHECK_THROWS_AS(rbf::model::average_networks({a, c}), rbf::RuntimeError);
  Network d = member(2, 2, false);
  d.task = rbf::data::Task::classification;
  CHECK_THROWS_AS(rbf::model::average_networks({a, d}), rbf::RuntimeError);
  CHECK_THROWS_AS(rbf::model::average_networks({}), rbf::RuntimeError);
}
