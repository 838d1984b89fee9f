// The CPU backend's entry points, declared here and defined in cpu/, so that the trainer's
// factory (model/backend_factory.cpp) creates Eigen backends without including cpu/.
#pragma once

#include <memory>

#include "contracts/backend.hpp"
#include "contracts/backend_options.hpp"
#include "contracts/refine_engine.hpp"

namespace rbf::cpu {

// The Eigen growth backend, its OpenMP regions on options.threads threads.
template <typename T>
std::unique_ptr<model::Backend<T>> make_backend(const model::CpuOptions& options);

// The matrix-free scoring pass's rate on this CPU with `threads` threads (0 = all cores), in
// the cost model's flops (3 d + 20 per Gaussian), measured in a few milliseconds.
double measure_matrix_free_gflops(int threads);

// Keeps the OpenMP runtime's default team within what the address-space limit (ulimit -v) can
// map, since libgomp ends the process when it cannot create a thread; call it before the first
// parallel region. Returns the cap (INT_MAX without a limit).
int fit_threads_to_address_space();

// The Eigen refinement engine.
template <typename T>
std::unique_ptr<model::RefineEngine<T>> make_refine_engine(const model::CpuOptions& options);

}  // namespace rbf::cpu
