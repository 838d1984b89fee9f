// Generated benchmark datasets (Friedman #1, Mackey-Glass), reproducible from a seed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "data/dataset.hpp"

namespace rbf::data {

// Friedman #1: y = 10 sin(pi x1 x2) + 20 (x3 - 0.5)^2 + 10 x4 + 5 x5 + noise * N(0,1),
// x uniform in [0,1]^d (d >= 5; the extra columns are irrelevant features).
Dataset make_friedman1(std::size_t rows, std::size_t d = 20, double noise = 1.0,
                       std::uint64_t seed = 1);

// Mackey-Glass time series, the tau = 17 benchmark: dx/dt = 0.2 x(t-17) / (1 + x(t-17)^10)
// - 0.1 x(t), with x = 1.2 on [-17, 0]. Row i is time t = 118 + i with features x(t-18),
// x(t-12), x(t-6), x(t) and target x(t+6) (the classic embedding), so row i's target is row
// i + 6's x(t). `noise` * N(0,1) is added to the sampled series itself (every value once), so
// that relation holds with noise too. The series stays within about [0.2, 1.4].
Dataset make_mackey_glass(std::size_t rows, double noise = 0.0, std::uint64_t seed = 1);

}  // namespace rbf::data
