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

// The device ran out of memory (an allocation failed, or another process took what the plan
// counted on). `auto` falls back to the CPU as for any fault; an explicit `gpu` run stops
// there and keeps the nodes grown so far, as at an interrupt.
class DeviceMemoryError : public DeviceError {
 public:
  explicit DeviceMemoryError(const std::string& message) : DeviceError(message) {}
};

}  // namespace rbf::model
