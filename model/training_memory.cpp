// Estimating a training run's host memory before any of it is allocated (model/training_memory.hpp).
#include "model/training_memory.hpp"

#include <algorithm>
#include <string>

#include "data/errors.hpp"
#include "contracts/host_memory.hpp"

namespace rbf::model {

namespace {

// The CPU backend's first capacity of Q (rows x this) and of the projection history
// (candidates x this).
constexpr double kFirstBasisColumns = 16;

std::size_t outputs_of(const data::Dataset& ds) {
  return ds.task == data::Task::classification ? ds.class_names.size() : ds.targets;
}

}  // namespace

double training_host_bytes(const data::Dataset& ds, const Config& config) {
  // In double: counts from a model file or the command line may be absurd, and must not wrap.
  const auto rows = static_cast<double>(ds.rows);
  const auto d = static_cast<double>(ds.features);
  const auto k = static_cast<double>(outputs_of(ds));
  const double candidates = static_cast<double>(std::min<std::size_t>(config.candidates.pool, ds.rows)) *
                            static_cast<double>(config.candidates.width_factors.size());
  const double s = config.trainer.precision == Precision::float64 ? 8.0 : 4.0;
  const double prepared = rows * (d + k) * 8.0;               // standardized X and one-hot or scaled Y
  const double trainer = rows * (d + k) * s + candidates * d * (8.0 + s);  // their copies, the centers
  double backend = 0;
  if (config.backend.kind != BackendKind::gpu)  // the GPU keeps these on the device
    backend = rows * (d + 3.0 * k + kFirstBasisColumns) * s + candidates * (k + d + kFirstBasisColumns + 4.0) * s;
  return prepared + trainer + backend;
}

void check_training_memory(const data::Dataset& ds, const Config& config) {
  const std::string shortfall = host_memory_shortfall(training_host_bytes(ds, config));
  if (shortfall.empty()) return;
  const bool classes = ds.task == data::Task::classification;
  throw RuntimeError(ds.source + ": training on " + std::to_string(ds.rows) + " rows with " +
                     std::to_string(outputs_of(ds)) + (classes ? " classes" : " target(s)") + " " + shortfall +
                     " (it grows with rows x " + (classes ? "classes" : "targets") +
                     " and candidates x outputs; fewer rows, classes or candidates.pool make it smaller)");
}

}  // namespace rbf::model
