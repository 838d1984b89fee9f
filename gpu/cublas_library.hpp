// cuBLAS opened at run time, on the first GPU context: a process that never trains on a GPU
// (help, evaluate, every CPU run and test) does not pay the 0.14 s that loading it costs.
#pragma once

#include <cublas_v2.h>

namespace rbf::gpu {

// The cuBLAS functions the backend calls. cublas_v2.h maps each name to its _v2 symbol, and
// decltype(&::cublasSgemv) takes the signature from the header this was built against.
struct CublasLibrary {
  decltype(&::cublasCreate) create = nullptr;
  decltype(&::cublasDestroy) destroy = nullptr;
  decltype(&::cublasSetStream) set_stream = nullptr;
  decltype(&::cublasSetPointerMode) set_pointer_mode = nullptr;
  decltype(&::cublasSetMathMode) set_math_mode = nullptr;
  decltype(&::cublasSgemv) sgemv = nullptr;
  decltype(&::cublasDgemv) dgemv = nullptr;
  decltype(&::cublasSgemm) sgemm = nullptr;
  decltype(&::cublasDgemm) dgemm = nullptr;
  decltype(&::cublasSsyrk) ssyrk = nullptr;
  decltype(&::cublasDsyrk) dsyrk = nullptr;
};

// Opens libcublas.so.<major of the headers> once, from the loader's search path or else the
// toolkit's library folder this was built with; throws model::DeviceError naming the library
// when it is missing or lacks a function, so that 'auto' falls back to the CPU.
const CublasLibrary& cublas();

}  // namespace rbf::gpu
