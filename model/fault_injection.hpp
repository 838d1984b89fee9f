// A backend decorator that fails like a broken GPU at a chosen iteration, for testing the
// automatic fallback. Enabled by RBFNET_FAULT_GPU_AT_ITERATION=k (see fault_iteration_from_env).
#pragma once

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "gpu/gpu_error.hpp"
#include "model/backend.hpp"

namespace rbf::model {

// The iteration named by RBFNET_FAULT_GPU_AT_ITERATION, or 0 (no fault) when unset or invalid.
inline std::size_t fault_iteration_from_env() {
  const char* value = std::getenv("RBFNET_FAULT_GPU_AT_ITERATION");
  if (!value || !*value) return 0;
  char* end = nullptr;
  const unsigned long long k = std::strtoull(value, &end, 10);
  return (end && *end == '\0') ? static_cast<std::size_t>(k) : 0;
}

// Forwards every call to `inner`; the selection made while the trainer's iteration counter
// `*iteration` equals `fail_at` throws rbf::gpu::Error, once, as a device fault would.
template <typename T>
class FaultInjectingBackend final : public Backend<T> {
 public:
  FaultInjectingBackend(std::unique_ptr<Backend<T>> inner, std::size_t fail_at, const std::size_t* iteration)
      : inner_(std::move(inner)), fail_at_(fail_at), iteration_(iteration) {}

  std::string name() const override { return inner_->name(); }
  void set_training_data(const T* x, std::size_t n, std::size_t d, const T* y, std::size_t k) override {
    inner_->set_training_data(x, n, d, y, k);
  }
  void set_validation_data(const T* x, std::size_t nv) override { inner_->set_validation_data(x, nv); }
  void set_candidates(const T* centers, const T* widths, const std::size_t* rows, std::size_t count,
                      double budget) override {
    inner_->set_candidates(centers, widths, rows, count, budget);
  }
  bool candidates_stored() const override { return inner_->candidates_stored(); }
  void reset_to_bias(std::vector<double>& a) override { inner_->reset_to_bias(a); }
  void mark_used(std::size_t c) override { inner_->mark_used(c); }
  Selection select_ols(double lambda, double tol) override {
    tick();
    return inner_->select_ols(lambda, tol);
  }
  Selection select_max_residual() override {
    tick();
    return inner_->select_max_residual();
  }
  double add_node(std::size_t c, double tol, std::vector<double>& h) override { return inner_->add_node(c, tol, h); }
  double update(bool statistics, std::vector<double>& a) override { return inner_->update(statistics, a); }
  void add_validation_column(std::size_t c) override { inner_->add_validation_column(c); }
  void predict_validation(const double* w, std::size_t columns, std::vector<double>& out) override {
    inner_->predict_validation(w, columns, out);
  }
  std::size_t nodes() const override { return inner_->nodes(); }
  std::size_t memory_bytes() const override { return inner_->memory_bytes(); }
  void export_state(BackendState<T>& state) const override { inner_->export_state(state); }
  void import_state(const BackendState<T>& state) override { inner_->import_state(state); }

 private:
  void tick() {
    if (!fired_ && *iteration_ == fail_at_) {
      fired_ = true;
      throw gpu::Error("injected GPU fault at iteration " + std::to_string(fail_at_) +
                       " (RBFNET_FAULT_GPU_AT_ITERATION)");
    }
  }

  std::unique_ptr<Backend<T>> inner_;
  std::size_t fail_at_ = 0;
  const std::size_t* iteration_;
  bool fired_ = false;
};

}  // namespace rbf::model
