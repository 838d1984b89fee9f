// Chooses and creates the compute backend named by the configuration.
#pragma once

#include <memory>

#include "model/backend.hpp"
#include "model/config.hpp"
#include "model/refine_engine.hpp"

namespace rbf::model {

// cpu: the Eigen backend. gpu: the CUDA backend, or an error saying why it is unavailable.
// auto: starts on the CPU, where small models are fastest.
template <typename T>
std::unique_ptr<Backend<T>> make_backend(BackendKind kind, const BackendConfig& backend, int threads);

// The refinement engine of the backend `kind` (cpu or gpu; auto means cpu).
template <typename T>
std::unique_ptr<RefineEngine<T>> make_refine_engine(BackendKind kind, const BackendConfig& backend, int threads);

}  // namespace rbf::model
