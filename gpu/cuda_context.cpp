// Opens a device for the CUDA backend: validates the index, creates the stream and cuBLAS handle.
#include "gpu/cuda_context.hpp"

#include <sstream>

#include "gpu/cublas_library.hpp"
#include "gpu/cuda_check.hpp"

namespace rbf::gpu {
namespace {

std::string mib(std::size_t bytes) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(1);
  out << static_cast<double>(bytes) / (1024.0 * 1024.0) << " MiB";
  return out.str();
}

}  // namespace

Context::Context(int device, model::GpuMemory memory) : device_(device) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    cudaGetLastError();
    throw Error(std::string("no usable CUDA device: ") +
                (status != cudaSuccess ? cudaGetErrorString(status) : "no device found"));
  }
  if (device < 0 || device >= count)
    throw InputError("backend.gpu_device is " + std::to_string(device) +
                     " but this machine has CUDA devices 0.." + std::to_string(count - 1));
  RBF_CUDA_CHECK(cudaSetDevice(device_));
  RBF_CUDA_CHECK(cudaGetDeviceProperties(&properties_, device_));
  mapped_inputs_ = memory == model::GpuMemory::mapped ||
                   (memory == model::GpuMemory::auto_select && properties_.integrated != 0);
  if (mapped_inputs_ && properties_.canMapHostMemory == 0)
    throw Error(std::string("backend.gpu_memory asks for mapped host memory but device ") +
                properties_.name + " cannot map host memory");
  cublas();  // opened (or refused) before the stream exists, so a failure leaks nothing
  RBF_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  const cublasStatus_t blas_status = cublas().create(&blas_);
  if (blas_status != CUBLAS_STATUS_SUCCESS) {
    RBF_CUDA_CHECK_LOG(cudaStreamDestroy(stream_));
    RBF_CUBLAS_CHECK(blas_status);
  }
  try {
    RBF_CUBLAS_CHECK(cublas().set_stream(blas_, stream_));
    RBF_CUBLAS_CHECK(cublas().set_pointer_mode(blas_, CUBLAS_POINTER_MODE_DEVICE));
    // Plain IEEE float32: TF32 tensor-core math would break agreement with the CPU backend.
    RBF_CUBLAS_CHECK(cublas().set_math_mode(blas_, CUBLAS_DEFAULT_MATH));
  } catch (...) {
    RBF_CUBLAS_CHECK_LOG(cublas().destroy(blas_));
    RBF_CUDA_CHECK_LOG(cudaStreamDestroy(stream_));
    throw;
  }
}

Context::~Context() {
  RBF_CUDA_CHECK_LOG(cudaSetDevice(device_));
  RBF_CUBLAS_CHECK_LOG(cublas().destroy(blas_));
  RBF_CUDA_CHECK_LOG(cudaStreamDestroy(stream_));
}

void Context::activate() const { RBF_CUDA_CHECK(cudaSetDevice(device_)); }

void Context::synchronize() const { RBF_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

std::size_t Context::free_memory() const {
  std::size_t free_bytes = 0, total_bytes = 0;
  RBF_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

std::size_t Context::total_memory() const { return properties_.totalGlobalMem; }

void Context::require_free(std::size_t bytes, const std::string& what) const {
  if (bytes > free_memory()) throw_out_of_memory(bytes, what);
}

void Context::throw_out_of_memory(std::size_t bytes, const std::string& what) const {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) free_bytes = total_bytes = 0;  // the message still goes
  cudaGetLastError();
  // What to change depends on what was being allocated: the caller that knows adds it.
  throw model::DeviceMemoryError("out of GPU memory: " + what + " needs " + mib(bytes) + " but only " +
                                 mib(free_bytes) + " of " + mib(total_bytes) + " are free on device " +
                                 std::to_string(device_) + " (" + properties_.name + ")");
}

}  // namespace rbf::gpu
