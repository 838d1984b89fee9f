// Partitioned models (trainer.partitions): k-means regions and blend weights, training on data
// with local structure, the model file round trip, and predictions continuous across the
// boundary between two parts.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "data/dataset.hpp"
#include "model/fit_scores.hpp"
#include "model/model_file.hpp"
#include "model/partitions.hpp"
#include "model/trainer.hpp"

using namespace rbf;

namespace {

// y = sum of Gaussian bumps over [0, 1]^2, plus noise: local structure.
data::Dataset bumps(std::size_t rows, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, 0.03);
  std::mt19937_64 fixed(7);  // the same bumps for every seed
  std::vector<double> cx(40), cy(40), w(40), h(40);
  for (std::size_t b = 0; b < 40; ++b) {
    cx[b] = unit(fixed);
    cy[b] = unit(fixed);
    w[b] = 0.03 + 0.08 * unit(fixed);
    h[b] = 2 * unit(fixed) - 1;
  }
  data::Dataset ds;
  ds.source = "bumps";
  ds.rows = rows;
  ds.features = 2;
  ds.targets = 1;
  ds.feature_names = {"x0", "x1"};
  ds.target_names = {"y"};
  for (std::size_t i = 0; i < rows; ++i) {
    const double a = unit(rng), c = unit(rng);
    double y = noise(rng);
    for (std::size_t b = 0; b < 40; ++b)
      y += h[b] * std::exp(-((a - cx[b]) * (a - cx[b]) + (c - cy[b]) * (c - cy[b])) / (2 * w[b] * w[b]));
    ds.x.insert(ds.x.end(), {a, c});
    ds.y.push_back(y);
  }
  return ds;
}

model::Config config_with(std::size_t partitions) {
  model::Config c;
  c.data.folds = 0;
  c.trainer.threads = 2;
  c.trainer.partitions = partitions;
  c.backend.kind = model::BackendKind::cpu;
  return c;
}

double rmse_on(const model::Network& net, const data::Dataset& test) {
  std::vector<std::size_t> rows(test.rows);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  return model::score_rows(net, test, rows).rmse;
}

}  // namespace

TEST_CASE("partitions: k-means finds the clusters, blend weights sum to 1, every row has a part") {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> spread(0.0, 0.1);
  const double centre[3][2] = {{-2, 0}, {2, 0}, {0, 3}};
  std::vector<double> x;
  for (std::size_t i = 0; i < 3000; ++i) x.insert(x.end(), {centre[i % 3][0] + spread(rng), centre[i % 3][1] + spread(rng)});
  const model::PartitionPlan plan = model::plan_partitions(x.data(), 3000, 2, 3, 11);
  REQUIRE(plan.parts == 3);
  for (const auto& c : centre) {
    double nearest = 1e9;
    for (std::size_t p = 0; p < 3; ++p)
      nearest = std::min(nearest, std::hypot(plan.centres[p * 2] - c[0], plan.centres[p * 2 + 1] - c[1]));
    CHECK(nearest < 0.05);
  }
  std::vector<std::pair<std::size_t, double>> weights;
  model::blend_weights(plan, x.data(), weights);
  double total = 0;
  for (const auto& entry : weights) total += entry.second;
  CHECK(total == doctest::Approx(1.0));
  const auto rows = model::part_rows(plan, x.data(), 3000);
  std::size_t members = 0;
  for (const auto& part : rows) members += part.size();
  CHECK(members >= 3000);  // every row in its own part (and in a neighbour's near a boundary)
  for (const auto& part : rows) CHECK(part.size() >= 900);
  // A part asked for where the data have no room is dropped, not left tiny.
  CHECK(model::plan_partitions(x.data(), 40, 2, 8, 11).parts < 8);
}

TEST_CASE("partitions: local structure is fitted better by parts, and the model file keeps them") {
  const data::Dataset train = bumps(6000, 1), test = bumps(2000, 2);
  const model::TrainResult one = model::train(train, config_with(1));
  const model::TrainResult four = model::train(train, config_with(4));
  REQUIRE(four.network.parts.size() == 4);
  REQUIRE(four.parts.size() == 4);
  CHECK(four.network.total_nodes() <= 300);  // stopping.max_nodes caps the model's nodes in all
  for (const model::IterationRecord& r : four.iterations) CHECK(r.part >= 1);
  CHECK(rmse_on(four.network, test) < 0.8 * rmse_on(one.network, test));

  const std::vector<std::uint8_t> bytes = model::serialize_network(four.network);
  const model::Network loaded = model::parse_network(bytes.data(), bytes.size(), "parts.rbfn");
  CHECK(loaded.parts.size() == 4);
  std::vector<double> a, b;
  four.network.predict(test.x.data(), test.rows, a);
  loaded.predict(test.x.data(), test.rows, b);
  CHECK(a == b);

  // Across the boundary between two parts (halfway between their centres, in the inputs the
  // centres live in) the prediction moves smoothly: a step of 1e-6 never changes it by more
  // than a slope of 1000 would. A hard switch between two sub-models would jump there.
  const model::Network& net = four.network;
  // Part 1 and the part whose centre is nearest it: neighbours, so the midpoint is on their boundary.
  const std::vector<double>& c = net.part_centres;
  std::size_t other = 1;
  for (std::size_t p = 2; p < net.parts.size(); ++p)
    if (std::hypot(c[2 * p] - c[0], c[2 * p + 1] - c[1]) < std::hypot(c[2 * other] - c[0], c[2 * other + 1] - c[1]))
      other = p;
  std::vector<double> from(2), to(2);
  for (std::size_t f = 0; f < 2; ++f) {
    from[f] = c[f] * net.x_scaler.scale[f] + net.x_scaler.mean[f];
    to[f] = c[2 * other + f] * net.x_scaler.scale[f] + net.x_scaler.mean[f];
  }
  constexpr int kSteps = 2001;
  const double step = 1e-6;
  std::vector<double> line;
  for (int s = 0; s < kSteps; ++s) {
    const double t = 0.5 + (s - kSteps / 2) * step;
    line.insert(line.end(), {from[0] + t * (to[0] - from[0]), from[1] + t * (to[1] - from[1])});
  }
  std::vector<double> out;
  net.predict(line.data(), kSteps, out);
  const double length = std::hypot(to[0] - from[0], to[1] - from[1]);
  double largest = 0;
  for (int s = 0; s + 1 < kSteps; ++s) largest = std::max(largest, std::abs(out[s + 1] - out[s]));
  CHECK(largest < 1000 * step * length);
}
