// The average of networks as one network (data.average_folds): since each output is linear in
// the weights, bias and linear terms, the mean of N networks is all their nodes with every
// weight divided by N.
#include "model/network_average.hpp"

#include <cstddef>
#include <string>

#include "data/errors.hpp"

namespace rbf::model {
namespace {

bool same_scaler(const data::Standardizer& a, const data::Standardizer& b) {
  return a.mean == b.mean && a.scale == b.scale;
}

}  // namespace

Network average_networks(const std::vector<Network>& members) {
  if (members.empty()) throw RuntimeError("average_networks: no networks to average");
  const Network& first = members.front();
  const std::size_t d = first.inputs, k = first.outputs;
  for (std::size_t i = 1; i < members.size(); ++i) {
    const Network& n = members[i];
    // Nodes of different standardizations live in different spaces: their sum would not
    // be a network of Gaussians in one of them.
    if (n.task != first.task || n.inputs != d || n.outputs != k || !same_scaler(n.x_scaler, first.x_scaler) ||
        !same_scaler(n.y_scaler, first.y_scaler))
      throw RuntimeError("average_networks: network " + std::to_string(i) +
                         " differs from the first in task, shape or standardization");
  }
  const double share = 1.0 / static_cast<double>(members.size());
  Network out = first;
  out.centers.clear();
  out.widths.clear();
  out.weights.clear();
  out.training_state.clear();
  out.bias.assign(k, 0.0);
  bool any_linear = false;
  for (const Network& n : members) any_linear = any_linear || !n.linear.empty();
  out.linear.assign(any_linear ? d * k : 0, 0.0);
  for (const Network& n : members) {
    out.centers.insert(out.centers.end(), n.centers.begin(), n.centers.end());
    out.widths.insert(out.widths.end(), n.widths.begin(), n.widths.end());
    for (double w : n.weights) out.weights.push_back(share * w);
    for (std::size_t t = 0; t < k && t < n.bias.size(); ++t) out.bias[t] += share * n.bias[t];
    for (std::size_t i = 0; i < n.linear.size() && i < out.linear.size(); ++i) out.linear[i] += share * n.linear[i];
  }
  return out;
}

}  // namespace rbf::model
