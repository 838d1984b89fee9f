// The automatic CPU -> GPU switch rule (the cost models are in cost_model.hpp).
//
// The trainer starts on the CPU and measures each iteration. A cost model predicts what the
// same iteration would cost on the GPU (fixed overhead + bytes moved / bandwidth), and a
// migration model what moving the state there costs once. The policy switches when the
// GPU's prediction plus the migration amortized over the iterations still to come beats
// the CPU's measured cost for `confirm` iterations in a row, or at `switch_at_nodes`.
// It never switches back (the trainer falls back to the CPU only on a GPU failure).
#pragma once

#include <cstddef>
#include <string>

#include "model/config.hpp"
#include "model/switching/cost_model.hpp"

namespace rbf::model {

class SwitchPolicy {
 public:
  SwitchPolicy(const BackendConfig& config, const CostModel& gpu, const MigrationModel& migration);

  // Called after every CPU iteration with that iteration's shape and measured time, and the
  // number of iterations still expected (max_nodes - nodes). True: migrate now.
  // With config.switch_at_nodes > 0 the models are ignored: true exactly when shape.nodes
  // reaches it. Otherwise true once gpu_prediction + migration / remaining < measured_cpu_ms
  // held for config.confirm calls in a row (a failing call restarts the count); never with
  // no iterations remaining. After the first true every later call returns false: the
  // trainer moves once, and only a GPU failure brings it back (without asking the policy).
  bool should_switch(const IterationShape& shape, double measured_cpu_ms, std::size_t remaining_iterations,
                     double migration_bytes);

  // Why the last call decided as it did (for the log).
  const std::string& reason() const { return reason_; }

  // True once should_switch has returned true.
  bool switched() const { return switched_; }
  // The GPU iteration and migration the last cost-model decision predicted, in ms (0 before
  // any, and under switch_at_nodes, which asks no model).
  double predicted_gpu_ms() const { return last_gpu_ms_; }
  double predicted_migration_ms() const { return last_migration_ms_; }

 private:
  BackendConfig config_;
  CostModel gpu_;
  MigrationModel migration_;
  std::size_t wins_in_a_row_ = 0;
  bool switched_ = false;
  double last_gpu_ms_ = 0;
  double last_migration_ms_ = 0;
  std::string reason_;
};

}  // namespace rbf::model
