// The error a compute device throws, kept free of CUDA headers so the trainer can catch it.
#pragma once

#include <string>

#include "data/errors.hpp"

namespace rbf::model {

// A CUDA or cuBLAS failure, or a device that cannot do the requested work (no device, out of
// device memory). The message names the failing expression, file:line and the library's text.
// The trainer treats it as a device fault: in `auto` it falls back to the CPU.
class DeviceError : public RuntimeError {
 public:
  explicit DeviceError(const std::string& message) : RuntimeError(message) {}
};

}  // namespace rbf::model
