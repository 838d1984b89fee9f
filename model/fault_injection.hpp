// A backend decorator that fails like a broken GPU at a chosen iteration, for testing the
// automatic fallback. Enabled by RBFNET_FAULT_GPU_AT_ITERATION=k (see fault_iteration_from_env);
// RBFNET_FAULT_GPU_OUT_OF_MEMORY=1 makes the fault the device running out of memory.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "contracts/device_error.hpp"
#include "contracts/backend.hpp"
#include "model/forwarding_backend.hpp"

namespace rbf::model {

// The iteration named by RBFNET_FAULT_GPU_AT_ITERATION, or 0 (no fault) when unset or invalid.
inline std::size_t fault_iteration_from_env() {
  const char* value = std::getenv("RBFNET_FAULT_GPU_AT_ITERATION");
  if (!value || !*value) return 0;
  char* end = nullptr;
  const unsigned long long k = std::strtoull(value, &end, 10);
  return (end && *end == '\0') ? static_cast<std::size_t>(k) : 0;
}

// Whether RBFNET_FAULT_GPU_OUT_OF_MEMORY asks for an out-of-memory fault ("1").
inline bool fault_out_of_memory_from_env() {
  const char* value = std::getenv("RBFNET_FAULT_GPU_OUT_OF_MEMORY");
  return value && std::string(value) == "1";
}

// Forwards every call to `inner`; the selection made while the trainer's iteration counter
// `*iteration` equals `fail_at` throws rbf::model::DeviceError (DeviceMemoryError when
// `out_of_memory`), once, as a device fault would.
template <typename T>
class FaultInjectingBackend final : public ForwardingBackend<T> {
 public:
  FaultInjectingBackend(std::unique_ptr<Backend<T>> inner, std::size_t fail_at, const std::size_t* iteration,
                        bool out_of_memory = false)
      : ForwardingBackend<T>(std::move(inner)), fail_at_(fail_at), iteration_(iteration),
        out_of_memory_(out_of_memory) {}

  Selection select_ols(double lambda, double tol) override {
    tick();
    return this->inner().select_ols(lambda, tol);
  }
  Selection select_max_residual() override {
    tick();
    return this->inner().select_max_residual();
  }

 private:
  void tick() {
    if (!fired_ && *iteration_ == fail_at_) {
      fired_ = true;
      if (out_of_memory_)
        throw DeviceMemoryError("injected out-of-memory fault at iteration " + std::to_string(fail_at_) +
                                " (RBFNET_FAULT_GPU_OUT_OF_MEMORY)");
      throw DeviceError("injected GPU fault at iteration " + std::to_string(fail_at_) +
                       " (RBFNET_FAULT_GPU_AT_ITERATION)");
    }
  }

  std::size_t fail_at_ = 0;
  const std::size_t* iteration_;
  bool out_of_memory_ = false;
  bool fired_ = false;
};

}  // namespace rbf::model
