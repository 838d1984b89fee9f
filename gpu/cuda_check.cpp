// Formats CUDA and cuBLAS failures for rbf::gpu::Error and for the destructors' log.
#include "gpu/cuda_check.hpp"

#include <spdlog/spdlog.h>

#include <string>

namespace rbf::gpu {
namespace {

std::string describe(const char* library, const char* error_name, const char* text,
                     const char* expr, const char* file, int line) {
  std::string message = std::string(library) + " call `" + expr + "` failed at " + file + ":" +
                        std::to_string(line) + ": " + error_name;
  if (text != nullptr && *text != '\0') message += std::string(" (") + text + ")";
  return message;
}

}  // namespace

const char* cublas_status_text(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "unknown cuBLAS status";
  }
}

void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  cudaGetLastError();  // clear a non-sticky error so the context stays usable for cleanup
  const std::string text = describe("CUDA", cudaGetErrorName(code), cudaGetErrorString(code), expr, file, line);
  if (code == cudaErrorMemoryAllocation) throw model::DeviceMemoryError(text);
  throw Error(text);
}

void throw_cublas_error(cublasStatus_t status, const char* expr, const char* file, int line) {
  throw Error(describe("cuBLAS", cublas_status_text(status), nullptr, expr, file, line));
}

void log_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  cudaGetLastError();
  spdlog::error("{}", describe("CUDA", cudaGetErrorName(code), cudaGetErrorString(code), expr,
                               file, line));
}

void log_cublas_error(cublasStatus_t status, const char* expr, const char* file, int line) {
  spdlog::error("{}",
                describe("cuBLAS", cublas_status_text(status), nullptr, expr, file, line));
}

}  // namespace rbf::gpu
