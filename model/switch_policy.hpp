// The automatic CPU -> GPU switch: per-backend cost models and the decision rule.
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

namespace rbf::model {

// What one iteration has to move, from which a cost model predicts its time.
struct IterationShape {
  std::size_t rows = 0;               // N training rows
  std::size_t features = 0;           // d
  std::size_t outputs = 0;            // k
  std::size_t candidates_unused = 0;  // columns read by the scoring pass
  std::size_t nodes = 0;              // t: columns of Q (bias excluded)
  std::size_t validation_rows = 0;
  std::size_t scalar_bytes = 4;       // sizeof(T)
  bool candidates_stored = true;      // false: Phi_C is recomputed every pass (compute-bound)
  // Refinement during growth (refine.every), whose cost is shared by the nodes grown
  // between two refinements.
  std::size_t refine_every = 0;       // 0: no refinement during growth
  std::size_t refine_epochs = 0;
  bool refine_lm = false;             // Levenberg-Marquardt rather than Adam epochs
};

// Bytes one iteration reads and writes: the scoring pass (unused columns of Phi_C when
// stored, the training rows when not), the candidate statistics, CGS2 (Q read 4 times), the
// residual update (E read twice, written once) and validation (X_val and Phi_val).
double iteration_bytes(const IterationShape& shape);
// Floating-point operations of one iteration's candidate evaluation when not stored:
// unused * rows * (3 d + 20); 0 when Phi_C is stored.
double iteration_flops(const IterationShape& shape);
// One refinement epoch of the current nodes. Adam: one loss and gradient, about ten passes
// over the N x nodes activations and the GEMMs of model/refine_engine.hpp. Levenberg-
// Marquardt: the Gauss-Newton system J^T J (N k P^2 more flops, P parameters) and, on
// average, two trial losses.
double refine_epoch_bytes(const IterationShape& shape);
double refine_epoch_flops(const IterationShape& shape);

struct CostModel {
  double overhead_ms = 0.05;     // fixed per-iteration cost: launches, synchronizations
  double bandwidth_gbs = 1000;   // effective memory bandwidth of the passes
  double gflops = 10000;         // effective rate of matrix-free candidate evaluation
  // One growth iteration plus its share of refinement (predict_refine_ms / refine_every).
  double predict_ms(const IterationShape& shape) const;
  // overhead + bytes / bandwidth (+ flops / gflops when Phi_C is not stored). A rate <= 0
  // predicts an infinite time for its part.
  double predict_growth_ms(const IterationShape& shape) const;
  // One refinement of shape.nodes nodes: its epochs (overhead + bytes / bandwidth + flops /
  // gflops each) and the rebuild of Q, R and the statistics (one growth iteration per node).
  double predict_refine_ms(const IterationShape& shape) const;
};

struct MigrationModel {
  double fixed_ms = 300;         // device start-up, allocations
  double transfer_gbs = 10;      // host -> device copies
  // Bytes moved: X, Y, validation X, candidates (or Phi_C), Q, E, statistics, Phi_val.
  double predict_ms(double bytes) const;
};

// A rough model of this machine's CPU for one decision only: whether `auto` should skip the
// CPU phase altogether because even the first iterations are predicted to be far cheaper on
// the GPU (a large data set). Measured in a few milliseconds: read bandwidth with `threads`.
CostModel probe_cpu_cost_model(int threads);

// True when the GPU's predicted cost of the first iteration, with the set-up amortized over
// `iterations`, is less than half the CPU's predicted cost: then `auto` starts on the GPU.
// The factor 2 covers the roughness of the CPU model. Never with switch_at_nodes set.
bool start_on_gpu(const BackendConfig& config, const CostModel& cpu, const CostModel& gpu,
                  const MigrationModel& migration, const IterationShape& first, std::size_t iterations,
                  double setup_bytes);

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
