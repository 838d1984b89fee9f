// The switch's cost models: bytes and flops of an iteration and of a refinement epoch, and
// the time a backend or a migration is predicted to take for them.
#include "model/switching/cost_model.hpp"

#include <algorithm>
#include <limits>

#include "contracts/refine_engine.hpp"

namespace rbf::model {

namespace {

// Reads of Q in one CGS2 add: h1 = Q^T phi comes from the scoring pass's history; one pass
// forms u = phi - Q h1 and takes h2 = Q^T u from the same tiles, a second does u -= Q h2 (both
// backends; 80-98% of RBF nodes need the second projection, so it is counted always).
constexpr double kCgs2PassesOverQ = 2.0;
// Evaluating one Gaussian entry from a center: d subtractions, d multiply-adds for the squared
// distance, the scaling, and exp (about 20 operations), then the multiply-add of Phi_C^T q.
constexpr double kExpFlops = 20.0;

double ms_for(double amount, double per_second) {
  if (amount <= 0) return 0.0;
  // A missing rate means this part cannot be predicted, so the prediction never wins.
  if (!(per_second > 0)) return std::numeric_limits<double>::infinity();
  return amount / per_second * 1e3;
}

}  // namespace

double iteration_bytes(const IterationShape& shape) {
  const double rows = static_cast<double>(shape.rows);
  const double s = static_cast<double>(shape.scalar_bytes);
  const double k = static_cast<double>(shape.outputs);
  const double d = static_cast<double>(shape.features);
  const double unused = static_cast<double>(shape.candidates_unused);
  const double basis = static_cast<double>(shape.nodes + 1);
  const double nv = static_cast<double>(shape.validation_rows);

  // The scoring pass z = Phi_C^T q reads every unused column once when Phi_C is stored;
  // matrix-free it re-reads the training rows instead (the arithmetic is in iteration_flops).
  double bytes = shape.candidates_stored ? unused * rows * s : rows * d * s;
  // Statistics read and written per candidate: n_c, s_c and the k values of g_c.
  bytes += 2.0 * unused * (k + 2.0) * s;
  bytes += kCgs2PassesOverQ * rows * basis * s;
  // Residual: a = q^T E reads E, E -= q a^T reads and writes it.
  bytes += 3.0 * k * rows * s;
  // Validation: the new column reads X_val, predictions read Phi_val.
  bytes += nv * d * s + nv * basis * s;
  return bytes;
}

double iteration_flops(const IterationShape& shape) {
  if (shape.candidates_stored) return 0.0;
  const double per_entry = 3.0 * static_cast<double>(shape.features) + kExpFlops;
  return static_cast<double>(shape.candidates_unused) * static_cast<double>(shape.rows) * per_entry;
}

// Passes over the N x nodes activations in one Adam epoch: write X C^T, turn it into Phi,
// read Phi for Phi W, Phi^T E and the adjoint, write A and H, read A and H for the GEMMs.
constexpr double kRefinePasses = 10.0;
// An LM epoch also evaluates the loss of (on average) two trial steps.
constexpr double kLmTrialLosses = 2.0;

double refine_epoch_bytes(const IterationShape& shape) {
  const double rows = static_cast<double>(shape.rows), s = static_cast<double>(shape.scalar_bytes);
  const double nodes = static_cast<double>(shape.nodes);
  const double adam = kRefinePasses * rows * nodes * s + rows * static_cast<double>(shape.features + shape.outputs) * s;
  if (!shape.refine_lm) return adam;
  // J is (N k) x P, written and read once.
  const double params = nodes * static_cast<double>(shape.features + 1 + shape.outputs) + static_cast<double>(shape.outputs);
  return (1.0 + kLmTrialLosses) * adam + 2.0 * rows * static_cast<double>(shape.outputs) * params * s;
}

double refine_epoch_flops(const IterationShape& shape) {
  const double adam = refine_epoch_flops(shape.rows, shape.nodes, shape.features, shape.outputs);
  if (!shape.refine_lm) return adam;
  const double params = static_cast<double>(shape.nodes * (shape.features + 1 + shape.outputs) + shape.outputs);
  return (1.0 + kLmTrialLosses) * adam + static_cast<double>(shape.rows) * static_cast<double>(shape.outputs) * params * params;
}

double CostModel::predict_growth_ms(const IterationShape& shape) const {
  return overhead_ms + ms_for(iteration_bytes(shape), bandwidth_gbs * 1e9) +
         ms_for(iteration_flops(shape), gflops * 1e9);
}

double CostModel::predict_refine_ms(const IterationShape& shape) const {
  const double epoch = overhead_ms + ms_for(refine_epoch_bytes(shape), bandwidth_gbs * 1e9) +
                       ms_for(refine_epoch_flops(shape), gflops * 1e9);
  return static_cast<double>(shape.refine_epochs) * epoch +
         static_cast<double>(shape.nodes) * predict_growth_ms(shape);
}

double CostModel::predict_ms(const IterationShape& shape) const {
  const double growth = predict_growth_ms(shape);
  if (shape.refine_every == 0 || shape.refine_epochs == 0) return growth;
  return growth + predict_refine_ms(shape) / static_cast<double>(shape.refine_every);
}

double MigrationModel::predict_ms(double bytes) const { return fixed_ms + ms_for(bytes, transfer_gbs * 1e9); }

MigrationModel shared_migration(const MigrationModel& migration, std::size_t growths, bool started) {
  MigrationModel shared = migration;
  const double startup = std::min(std::max(0.0, migration.startup_ms), migration.fixed_ms);
  const double share = started ? 0.0 : startup / static_cast<double>(std::max<std::size_t>(1, growths));
  shared.fixed_ms = migration.fixed_ms - startup + share;
  shared.startup_ms = share;
  return shared;
}

}  // namespace rbf::model
