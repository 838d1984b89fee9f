// The switch's cost models: what one iteration (and one refinement) moves and computes, and
// what a backend and a migration are predicted to take for it. Pure functions of their inputs.
#pragma once

#include <cstddef>

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
// stored, the training rows when not), the candidate statistics, CGS2 (Q read twice), the
// residual update (E read twice, written once) and validation (X_val and Phi_val).
double iteration_bytes(const IterationShape& shape);
// Floating-point operations of one iteration's candidate evaluation when not stored:
// unused * rows * (3 d + 20); 0 when Phi_C is stored.
double iteration_flops(const IterationShape& shape);
// One refinement epoch of the current nodes. Adam: one loss and gradient, about ten passes
// over the N x nodes activations and the GEMMs of contracts/refine_engine.hpp. Levenberg-
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
  double startup_ms = 0;         // the part of fixed_ms a process pays once: the device's start-up
  double transfer_gbs = 10;      // host -> device copies
  // Bytes moved: X, Y, validation X, candidates (or Phi_C), Q, E, statistics, Phi_val.
  double predict_ms(double bytes) const;
};

// The migration cost one growth should count when the training runs `growths` growths from
// this one on (model selection's folds and width sets, then the final growth) in one process:
// the device's start-up is paid once for all of them, and not at all when `started` (a device
// was opened in this process already).
MigrationModel shared_migration(const MigrationModel& migration, std::size_t growths, bool started);

}  // namespace rbf::model
