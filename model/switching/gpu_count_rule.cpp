// How many GPUs auto uses (model/switching/gpu_count_rule.hpp).
#include "model/switching/gpu_count_rule.hpp"

#include <algorithm>

namespace rbf::model {

std::size_t auto_gpu_count(std::size_t rows, std::size_t candidates, std::size_t visible, std::size_t memory_gpus) {
  const double work = static_cast<double>(rows) * static_cast<double>(candidates);
  const auto worth = std::max(static_cast<std::size_t>(work / kGaussiansPerAutoShard), memory_gpus);
  return std::max<std::size_t>(1, std::min(visible, worth));
}

std::size_t gpus_for_memory(double split_bytes, double whole_bytes, double device_bytes, std::size_t visible) {
  for (std::size_t g = 1; g < visible; ++g)
    if (split_bytes / static_cast<double>(g) + whole_bytes <= device_bytes) return g;
  return std::max<std::size_t>(1, visible);
}

}  // namespace rbf::model
