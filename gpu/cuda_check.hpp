// Check macros for CUDA and cuBLAS calls: throw rbf::model::DeviceError with the expression, file:line
// and the library's error text, or, in destructors, only log it.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "contracts/device_error.hpp"

namespace rbf::gpu {

// Inside gpu/ the device error is simply gpu::Error.
using Error = model::DeviceError;

// cublasGetStatusString appeared in CUDA 11.4; JetPack 4.6 ships 10.2, so name them here.
const char* cublas_status_text(cublasStatus_t status);

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* expr, const char* file,
                                     int line);
void log_cuda_error(cudaError_t code, const char* expr, const char* file, int line);
void log_cublas_error(cublasStatus_t status, const char* expr, const char* file, int line);

}  // namespace rbf::gpu

// Kernel launchers (gpu/*_kernels.hpp) return cudaGetLastError(), so wrapping a launcher in
// RBF_CUDA_CHECK checks the launch itself.
#define RBF_CUDA_CHECK(expr)                                                  \
  do {                                                                        \
    const cudaError_t rbf_cuda_status_ = (expr);                              \
    if (rbf_cuda_status_ != cudaSuccess)                                      \
      ::rbf::gpu::throw_cuda_error(rbf_cuda_status_, #expr, __FILE__, __LINE__); \
  } while (0)

#define RBF_CUBLAS_CHECK(expr)                                                   \
  do {                                                                           \
    const cublasStatus_t rbf_cublas_status_ = (expr);                            \
    if (rbf_cublas_status_ != CUBLAS_STATUS_SUCCESS)                             \
      ::rbf::gpu::throw_cublas_error(rbf_cublas_status_, #expr, __FILE__, __LINE__); \
  } while (0)

// Destructors must not throw: these log the failure and carry on.
#define RBF_CUDA_CHECK_LOG(expr)                                              \
  do {                                                                        \
    const cudaError_t rbf_cuda_status_ = (expr);                              \
    if (rbf_cuda_status_ != cudaSuccess)                                      \
      ::rbf::gpu::log_cuda_error(rbf_cuda_status_, #expr, __FILE__, __LINE__); \
  } while (0)

#define RBF_CUBLAS_CHECK_LOG(expr)                                                \
  do {                                                                            \
    const cublasStatus_t rbf_cublas_status_ = (expr);                             \
    if (rbf_cublas_status_ != CUBLAS_STATUS_SUCCESS)                              \
      ::rbf::gpu::log_cublas_error(rbf_cublas_status_, #expr, __FILE__, __LINE__); \
  } while (0)
