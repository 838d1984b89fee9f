// A backend that forwards every call to an inner backend: the base of decorators (fault
// injection, test doubles), which override only the calls they change.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "contracts/backend.hpp"

namespace rbf::model {

template <typename T>
class ForwardingBackend : public Backend<T> {
 public:
  explicit ForwardingBackend(std::unique_ptr<Backend<T>> inner) : inner_(std::move(inner)) {}

  BackendKind kind() const override { return inner_->kind(); }
  void set_setup_stop(const std::atomic<bool>* stop) override { inner_->set_setup_stop(stop); }
  void set_row_shards(std::shared_ptr<RowShards> shards) override { inner_->set_row_shards(std::move(shards)); }
  void set_training_data(const T* x, std::size_t n, std::size_t d, const T* y, std::size_t k) override {
    inner_->set_training_data(x, n, d, y, k);
  }
  void set_row_scale(const T* s) override { inner_->set_row_scale(s); }
  void set_validation_data(const T* x, std::size_t nv) override { inner_->set_validation_data(x, nv); }
  void set_candidates(const T* centers, const T* widths, const std::size_t* rows, std::size_t count,
                      const StorageRequest& storage) override {
    inner_->set_candidates(centers, widths, rows, count, storage);
  }
  StorageDecision candidate_storage() const override { return inner_->candidate_storage(); }
  void reserve_nodes(std::size_t nodes) override { inner_->reserve_nodes(nodes); }
  std::string memory_shortfall(std::size_t nodes) const override { return inner_->memory_shortfall(nodes); }
  std::string basis_storage() const override { return inner_->basis_storage(); }
  void reset_to_bias(std::vector<double>& a) override { inner_->reset_to_bias(a); }
  void mark_used(std::size_t c) override { inner_->mark_used(c); }
  Selection select_ols(double lambda, double tol) override { return inner_->select_ols(lambda, tol); }
  Selection select_max_residual() override { return inner_->select_max_residual(); }
  double add_node(std::size_t c, double tol, std::vector<double>& h) override { return inner_->add_node(c, tol, h); }
  double add_node_at(const T* center, T width, double tol, std::vector<double>& h) override {
    return inner_->add_node_at(center, width, tol, h);
  }
  double update(bool statistics, std::vector<double>& a) override { return inner_->update(statistics, a); }
  void add_validation_column(std::size_t c) override { inner_->add_validation_column(c); }
  void add_validation_column_at(const T* center, T width) override { inner_->add_validation_column_at(center, width); }
  void predict_validation(const double* w, std::size_t columns, std::vector<double>& out) override {
    inner_->predict_validation(w, columns, out);
  }
  void set_validation_targets(const ValidationTargets& targets) override { inner_->set_validation_targets(targets); }
  bool validation_sums(const double* w, std::size_t columns, ValidationSums& sums) override {
    return inner_->validation_sums(w, columns, sums);
  }
  std::size_t nodes() const override { return inner_->nodes(); }
  std::size_t reorthogonalizations() const override { return inner_->reorthogonalizations(); }
  std::size_t memory_bytes() const override { return inner_->memory_bytes(); }
  void export_state(BackendState<T>& state) const override { inner_->export_state(state); }
  void import_state(const BackendState<T>& state) override { inner_->import_state(state); }

 protected:
  Backend<T>& inner() { return *inner_; }

 private:
  std::unique_ptr<Backend<T>> inner_;
};

}  // namespace rbf::model
