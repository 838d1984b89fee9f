// The log-or-linear decision for the bench plot's time axes.
#include "app/bench_plot_scale.hpp"

#include <algorithm>

namespace rbf::app {

AxisScale time_axis_scale(const std::vector<NodeCurve>& curves, double threshold) {
  std::map<std::size_t, std::pair<double, double>> range;  // node count -> (smallest, largest)
  std::map<std::size_t, int> count;
  for (const NodeCurve& curve : curves) {
    for (const auto& point : curve) {
      if (!(point.second > 0)) continue;  // also skips NaN
      auto it = range.find(point.first);
      if (it == range.end()) {
        range.emplace(point.first, std::make_pair(point.second, point.second));
      } else {
        it->second.first = std::min(it->second.first, point.second);
        it->second.second = std::max(it->second.second, point.second);
      }
      ++count[point.first];
    }
  }
  AxisScale scale;
  for (const auto& entry : range) {
    if (count[entry.first] < 2) continue;
    scale.ratio = std::max(scale.ratio, entry.second.second / entry.second.first);
  }
  scale.log = scale.ratio > threshold;
  return scale;
}

}  // namespace rbf::app
