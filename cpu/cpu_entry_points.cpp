// The CPU backend's entry points (declared in contracts/cpu_entry_points.hpp).
#include "contracts/cpu_entry_points.hpp"

#include "cpu/eigen_backend.hpp"
#include "cpu/eigen_refine_engine.hpp"

namespace rbf::cpu {

template <typename T>
std::unique_ptr<model::Backend<T>> make_backend(const model::CpuOptions& options) {
  return std::make_unique<EigenBackend<T>>(options.threads);
}

template <typename T>
std::unique_ptr<model::RefineEngine<T>> make_refine_engine(const model::CpuOptions& options) {
  return std::make_unique<EigenRefineEngine<T>>(options.threads);
}

template std::unique_ptr<model::Backend<float>> make_backend<float>(const model::CpuOptions&);
template std::unique_ptr<model::Backend<double>> make_backend<double>(const model::CpuOptions&);
template std::unique_ptr<model::RefineEngine<float>> make_refine_engine<float>(const model::CpuOptions&);
template std::unique_ptr<model::RefineEngine<double>> make_refine_engine<double>(const model::CpuOptions&);

}  // namespace rbf::cpu
