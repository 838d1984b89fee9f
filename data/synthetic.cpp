// Friedman #1 regression data from a seed, for benchmarks and tests without files.
#include "data/synthetic.hpp"

#include <cmath>
#include <string>

#include "data/errors.hpp"
#include "data/split.hpp"

namespace rbf::data {

Dataset make_friedman1(std::size_t rows, std::size_t d, double noise, std::uint64_t seed) {
  if (d < 5) {
    throw InputError("Friedman #1 needs at least 5 features, but " + std::to_string(d) + " were asked for");
  }
  if (!(noise >= 0.0) || !std::isfinite(noise)) {
    throw InputError("the Friedman #1 noise level must be a finite number >= 0");
  }
  Dataset data;
  data.source =
      "friedman1(rows=" + std::to_string(rows) + ", d=" + std::to_string(d) + ", seed=" + std::to_string(seed) + ")";
  data.rows = rows;
  data.features = d;
  data.targets = 1;
  data.task = Task::regression;
  for (std::size_t j = 0; j < d; ++j) data.feature_names.push_back("x" + std::to_string(j + 1));
  data.target_names = {"y"};
  data.x.resize(rows * d);
  data.y.resize(rows);

  constexpr double kPi = 3.14159265358979323846;
  SplitMix64 rng(seed);
  for (std::size_t i = 0; i < rows; ++i) {
    double* x = data.x.data() + i * d;
    for (std::size_t j = 0; j < d; ++j) x[j] = rng.uniform();
    const double clean =
        10.0 * std::sin(kPi * x[0] * x[1]) + 20.0 * (x[2] - 0.5) * (x[2] - 0.5) + 10.0 * x[3] + 5.0 * x[4];
    // Drawn every row even when noise is 0, so x does not depend on the noise level.
    data.y[i] = clean + noise * rng.normal();
  }
  return data;
}

}  // namespace rbf::data
