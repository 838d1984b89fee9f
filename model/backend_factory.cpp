// Backend factory: the one place that maps BackendKind to an implementation.
#include "model/backend_factory.hpp"

#include "gpu/gpu_api.hpp"
#include "model/eigen_backend.hpp"
#include "model/eigen_refine_engine.hpp"

namespace rbf::model {

template <typename T>
std::unique_ptr<Backend<T>> make_backend(BackendKind kind, const BackendConfig& backend, int threads) {
  switch (kind) {
    case BackendKind::gpu:
      return gpu::make_backend<T>(backend);
    case BackendKind::cpu:
    case BackendKind::auto_select:
      break;
  }
  return make_eigen_backend<T>(threads);
}

template std::unique_ptr<Backend<float>> make_backend<float>(BackendKind, const BackendConfig&, int);
template std::unique_ptr<Backend<double>> make_backend<double>(BackendKind, const BackendConfig&, int);

template <typename T>
std::unique_ptr<RefineEngine<T>> make_refine_engine(BackendKind kind, const BackendConfig& backend, int threads) {
  if (kind == BackendKind::gpu) return gpu::make_refine_engine<T>(backend);
  return make_eigen_refine_engine<T>(threads);
}

template std::unique_ptr<RefineEngine<float>> make_refine_engine<float>(BackendKind, const BackendConfig&, int);
template std::unique_ptr<RefineEngine<double>> make_refine_engine<double>(BackendKind, const BackendConfig&, int);

}  // namespace rbf::model
