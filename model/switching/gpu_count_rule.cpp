// How many GPUs auto uses (model/switching/gpu_count_rule.hpp).
#include "model/switching/gpu_count_rule.hpp"

#include <algorithm>

namespace rbf::model {

std::size_t auto_gpu_count(std::size_t rows, std::size_t candidates, std::size_t visible) {
  const double work = static_cast<double>(rows) * static_cast<double>(candidates);
  const auto worth = static_cast<std::size_t>(work / kGaussiansPerAutoShard);
  return std::max<std::size_t>(1, std::min(visible, worth));
}

}  // namespace rbf::model
