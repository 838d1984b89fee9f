// Calibrating a classifier's probabilities: the scale of the class scores whose softmax fits
// held-out rows best (model/probability_scale.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "model/network.hpp"

namespace rbf::model {

// Fits net.proba_scale (a classifier's) on the rows `rows` of `ds`, which the network should
// not have been grown on where there are such rows; returns the rows used (at most
// kCalibrationRows of them, evenly spaced). A regression network is left as it is.
std::size_t calibrate_probabilities(Network& net, const data::Dataset& ds, const std::vector<std::size_t>& rows);

// The scale a in [kMinProbabilityScale, kMaxProbabilityScale] whose softmax(a x scores) has the
// least log loss on the rows given, against targets smoothed by probability_smoothing: scores
// row-major rows x k, classes the true class of each row. At most kCalibrationRows rows are
// used (evenly spaced), so a large validation set costs a bounded time.
double fit_probability_scale(const double* scores, const std::vector<std::size_t>& classes, std::size_t k);

// Platt's smoothing of the targets for `rows` rows: the true class weighs 1 - eps + eps / k.
inline double probability_smoothing(std::size_t rows) { return 1.0 / (static_cast<double>(rows) + 2.0); }

inline constexpr double kMinProbabilityScale = 1e-3;
inline constexpr double kMaxProbabilityScale = 1e3;
inline constexpr std::size_t kCalibrationRows = 100000;

}  // namespace rbf::model
