// The CPU's predicted costs of storing Phi_C or computing it on every pass, for the storage
// rule (contracts/candidate_storage.hpp).
#pragma once

#include <cstddef>

#include "contracts/candidate_storage.hpp"
#include "model/switching/cost_model.hpp"

namespace rbf::model {

// Below this size a stored Phi_C is cheap to evaluate and mostly read from cache: it is stored
// whenever it fits, without measuring the machine (the probe would cost more than it saves).
constexpr double kStorageDecisionBytes = 256.0 * 1024 * 1024;

// The predicted milliseconds of `iterations` growth iterations shaped like `first` (its
// candidates_stored ignored) with Phi_C stored, then computed on every pass (matrix-free).
// Stored pays one evaluation of Phi_C (a matrix-free pass's arithmetic and the write of
// Phi_C) and one read of it per iteration; matrix-free pays the arithmetic every iteration.
struct StorageCosts {
  double stored_ms = 0;
  double matrix_free_ms = 0;
};
StorageCosts predict_storage_costs(const CostModel& cpu, IterationShape first, std::size_t iterations);

// How much cheaper the matrix-free run must be predicted before the CPU leaves storing.
constexpr double kMatrixFreeMargin = 1.5;

// The request a CPU backend gets for a Phi_C of `phi_bytes` under `budget_bytes`: the budget
// alone when Phi_C is below kStorageDecisionBytes or the rates are unmeasured (stored where it
// fits), else with `cpu`'s predicted costs over `iterations` and kMatrixFreeMargin.
StorageRequest cpu_storage_request(double budget_bytes, double phi_bytes, const CostModel& cpu,
                                   const IterationShape& first, std::size_t iterations);

}  // namespace rbf::model
