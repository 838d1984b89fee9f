// The validation score's sums (model::ValidationSums) computed from predictions by the
// contract's definition, on the host: what a backend's own validation_sums must match.
#pragma once

#include <cstddef>
#include <vector>

#include "contracts/backend.hpp"

namespace rbf::test {

// pred: nv x k row-major, as predict_validation writes it.
inline model::ValidationSums reference_validation_sums(const std::vector<double>& pred,
                                                       const model::ValidationTargets& t, std::size_t nv,
                                                       std::size_t k) {
  model::ValidationSums s;
  auto score = [&](std::size_t i, std::size_t j) {
    return pred[i * k + j] + (t.class_offset.empty() ? 0.0 : t.class_offset[i * k + j]);
  };
  for (std::size_t i = 0; i < nv; ++i) {
    const double row = t.row_weight.empty() ? 1.0 : t.row_weight[i];
    std::size_t arg = 0;  // the first largest score
    for (std::size_t j = 0; j < k; ++j) {
      const double r = pred[i * k + j] - t.target[i * k + j];
      s.weighted_sse += row * (t.error_weight[j] * r * r);
      if (score(i, j) > score(i, arg)) arg = j;
    }
    if (!t.classes.empty() && static_cast<long long>(arg) == t.classes[i]) s.correct += row;
  }
  return s;
}

}  // namespace rbf::test
