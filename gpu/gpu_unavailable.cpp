// Entry points of the CUDA backend for builds without CUDA: each says so plainly.
#include "gpu/gpu_api.hpp"

#include "data/errors.hpp"

namespace rbf::gpu {

bool built_with_cuda() { return false; }

DeviceReport query_devices() {
  DeviceReport report;
  report.why_none = "this rbfnet was built without CUDA (configure with -DRBF_CUDA=ON)";
  return report;
}

template <typename T>
std::unique_ptr<model::Backend<T>> make_backend(const model::BackendConfig&) {
  throw InputError("the GPU backend is not available: this rbfnet was built without CUDA");
}

template <typename T>
std::unique_ptr<model::RefineEngine<T>> make_refine_engine(const model::BackendConfig&) {
  throw InputError("GPU refinement is not available: this rbfnet was built without CUDA");
}

template std::unique_ptr<model::RefineEngine<float>> make_refine_engine<float>(const model::BackendConfig&);
template std::unique_ptr<model::RefineEngine<double>> make_refine_engine<double>(const model::BackendConfig&);
template std::unique_ptr<model::Backend<float>> make_backend<float>(const model::BackendConfig&);
template std::unique_ptr<model::Backend<double>> make_backend<double>(const model::BackendConfig&);

}  // namespace rbf::gpu
