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

// The Eigen refinement engine.
template <typename T>
std::unique_ptr<model::RefineEngine<T>> make_refine_engine(const model::CpuOptions& options);

}  // namespace rbf::cpu
