// Generated benchmark datasets (Friedman #1), reproducible from a seed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "data/dataset.hpp"

namespace rbf::data {

// Friedman #1: y = 10 sin(pi x1 x2) + 20 (x3 - 0.5)^2 + 10 x4 + 5 x5 + noise * N(0,1),
// x uniform in [0,1]^d (d >= 5; the extra columns are irrelevant features).
Dataset make_friedman1(std::size_t rows, std::size_t d = 20, double noise = 1.0,
                       std::uint64_t seed = 1);

}  // namespace rbf::data
