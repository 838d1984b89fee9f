// Friedman #1 and Mackey-Glass regression data, for benchmarks and tests without files.
#include "data/synthetic.hpp"

#include <cmath>
#include <string>
#include <vector>

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

Dataset make_mackey_glass(std::size_t rows, double noise, std::uint64_t seed) {
  if (!(noise >= 0.0) || !std::isfinite(noise)) {
    throw InputError("the Mackey-Glass noise level must be a finite number >= 0");
  }
  // Fourth-order Runge-Kutta with a fixed step dt = 0.1, sampled every 1.0 (10 steps).
  // tau / dt = 170 steps, so the delayed term at a step's start and end is a stored value;
  // at the half step it is the mean of the two neighbours (linear interpolation, the usual
  // choice for Runge-Kutta on a delay equation; it needs no finer grid of history).
  constexpr double kDt = 0.1;
  constexpr std::size_t kPerUnit = 10;        // steps per time unit
  constexpr std::size_t kDelaySteps = 170;    // tau = 17
  constexpr std::size_t kFirst = 118;         // time of row 0: 100 units of transient + 18 of lag
  constexpr double kHistory = 1.2;
  const std::size_t units = kFirst + rows + 6;  // the last row needs x(t + 6)
  const std::size_t steps = units * kPerUnit;
  std::vector<double> x(steps + 1);
  x[0] = kHistory;
  auto delayed = [&](std::size_t n) { return n >= kDelaySteps ? x[n - kDelaySteps] : kHistory; };
  auto f = [](double now, double lagged) {
    const double l2 = lagged * lagged, l4 = l2 * l2, l8 = l4 * l4;
    return 0.2 * lagged / (1.0 + l8 * l2) - 0.1 * now;
  };
  for (std::size_t n = 0; n < steps; ++n) {
    const double lag0 = delayed(n), lag1 = delayed(n + 1), lag_half = 0.5 * (lag0 + lag1);
    const double k1 = f(x[n], lag0);
    const double k2 = f(x[n] + 0.5 * kDt * k1, lag_half);
    const double k3 = f(x[n] + 0.5 * kDt * k2, lag_half);
    const double k4 = f(x[n] + kDt * k3, lag1);
    x[n + 1] = x[n] + kDt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
  }
  // The sampled series at integer times, with the observation noise drawn once per value.
  std::vector<double> s(units + 1);
  SplitMix64 rng(seed);
  for (std::size_t t = 0; t <= units; ++t) s[t] = x[t * kPerUnit] + (noise > 0 ? noise * rng.normal() : 0.0);

  Dataset data;
  data.source = "mackey_glass(rows=" + std::to_string(rows) + ", tau=17" +
                (noise > 0 ? ", noise=" + std::to_string(noise) + ", seed=" + std::to_string(seed) : std::string()) +
                ")";
  data.rows = rows;
  data.features = 4;
  data.targets = 1;
  data.task = Task::regression;
  data.feature_names = {"x(t-18)", "x(t-12)", "x(t-6)", "x(t)"};
  data.target_names = {"x(t+6)"};
  data.x.resize(rows * 4);
  data.y.resize(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const std::size_t t = kFirst + i;
    double* row = data.x.data() + i * 4;
    row[0] = s[t - 18];
    row[1] = s[t - 12];
    row[2] = s[t - 6];
    row[3] = s[t];
    data.y[i] = s[t + 6];
  }
  return data;
}

}  // namespace rbf::data
