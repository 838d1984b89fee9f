// The GPU probe for builds without CUDA: each entry point says so plainly.
#include "data/errors.hpp"
#include "gpu/calibration.hpp"

namespace rbf::gpu {

std::string gpu_device_name(int) { throw InputError("this rbfnet was built without CUDA"); }

GpuCalibration calibrate_gpu(int) {
  throw InputError("there is no GPU to calibrate: this rbfnet was built without CUDA");
}

}  // namespace rbf::gpu
