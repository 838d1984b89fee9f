// The average of networks that share their inputs' and targets' standardization, as one
// network: every member's nodes, with weights, bias and linear terms divided among them.
#pragma once

#include <vector>

#include "model/network.hpp"

namespace rbf::model {

// A network whose outputs are the mean of `members`' outputs (class scores, for classes).
// The first member gives the names, scalers and provenance. Throws rbf::RuntimeError when the
// members differ in task, inputs, outputs or scalers, or when there are none.
Network average_networks(const std::vector<Network>& members);

}  // namespace rbf::model
