// The error type of the CUDA backend, kept free of CUDA headers so callers can catch it anywhere.
#pragma once

#include <string>

#include "data/errors.hpp"

namespace rbf::gpu {

// A CUDA or cuBLAS failure, or a device that cannot do the requested work (no device, out of
// device memory). The message names the failing expression, file:line and the library's text.
class Error : public RuntimeError {
 public:
  explicit Error(const std::string& message) : RuntimeError(message) {}
};

}  // namespace rbf::gpu
