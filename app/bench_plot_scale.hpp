// Whether a bench plot's time axis is logarithmic: when the curves it holds differ by more than
// 10x, a linear axis flattens the lower ones against zero.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

namespace rbf::app {

// A curve: its value at each node count it reached.
using NodeCurve = std::map<std::size_t, double>;

struct AxisScale {
  bool log = false;
  double ratio = 0;  // the largest ratio between two curves at one node count; 0 = none compared
};

// At each node count where two or more curves have a positive value, the largest of them over
// the smallest; the axis is logarithmic when the largest such ratio exceeds `threshold`. Values
// <= 0 (nothing measured) and lone curves compare nothing.
AxisScale time_axis_scale(const std::vector<NodeCurve>& curves, double threshold = 10.0);

}  // namespace rbf::app
