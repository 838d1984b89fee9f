// The CUDA backend's entry points for builds without CUDA: each says so plainly.
#include "contracts/gpu_entry_points.hpp"

#include "data/errors.hpp"

namespace rbf::gpu {

namespace {
const char* const kNoCuda = "this rbfnet was built without CUDA";
// Only backend.kind (--backend) gpu reaches these: auto never asks a build without CUDA.
const char* const kUseCpu = "; use cpu or auto";
}  // namespace

bool built_with_cuda() { return false; }

DeviceReport query_devices() {
  DeviceReport report;
  report.why_none = std::string(kNoCuda) + " (configure with -DRBF_CUDA=ON)";
  return report;
}

bool context_opened_in_process() { return false; }

std::shared_ptr<Context> open_context(const model::GpuOptions&) {
  throw InputError(std::string("backend gpu (backend.kind, --backend) is not available: ") + kNoCuda + kUseCpu);
}

template <typename T>
std::unique_ptr<model::Backend<T>> make_backend(std::shared_ptr<Context>, const model::GpuOptions&) {
  throw InputError(std::string("backend gpu (backend.kind, --backend) is not available: ") + kNoCuda + kUseCpu);
}

std::vector<std::shared_ptr<model::RowShards>> make_device_row_shards(const std::vector<int>&) {
  throw InputError(std::string("backend.gpu_devices (--gpu-devices) is not available: ") + kNoCuda + kUseCpu);
}

template <typename T>
std::unique_ptr<model::RefineEngine<T>> make_refine_engine(std::shared_ptr<Context>) {
  throw InputError(std::string("GPU refinement (backend.kind, --backend gpu) is not available: ") + kNoCuda + kUseCpu);
}

std::string device_name(int) { throw InputError(kNoCuda); }

model::GpuCalibration calibrate(const Context&, double) {
  throw InputError(std::string("there is no GPU to calibrate: ") + kNoCuda);
}

template std::unique_ptr<model::Backend<float>> make_backend<float>(std::shared_ptr<Context>, const model::GpuOptions&);
template std::unique_ptr<model::Backend<double>> make_backend<double>(std::shared_ptr<Context>, const model::GpuOptions&);
template std::unique_ptr<model::RefineEngine<float>> make_refine_engine<float>(std::shared_ptr<Context>);
template std::unique_ptr<model::RefineEngine<double>> make_refine_engine<double>(std::shared_ptr<Context>);

}  // namespace rbf::gpu
