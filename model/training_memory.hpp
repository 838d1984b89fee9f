// The host memory a training run will take, estimated before anything is allocated, so that a
// run too large for the machine fails at once and says why.
#pragma once

#include "data/dataset.hpp"
#include "model/config.hpp"

namespace rbf::model {

// Bytes of host memory a run on `ds` needs besides the data set itself and a stored Phi_C
// (kept only where it fits): the prepared matrices in double, the trainer's copies in the
// training precision, the CPU backend's X, Y, E and padded E, and the candidate statistics
// (candidates x outputs), which with thousands of classes dominate next to rows x outputs.
double training_host_bytes(const data::Dataset& ds, const Config& config);

// Throws rbf::RuntimeError naming the size and what makes it, when training_host_bytes is
// more than the host memory available.
void check_training_memory(const data::Dataset& ds, const Config& config);

}  // namespace rbf::model
