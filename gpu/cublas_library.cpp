// Opens cuBLAS on first use and resolves the functions the backend calls (see cublas_library.hpp).
#include "gpu/cublas_library.hpp"

#include <dlfcn.h>

#include <string>

#include "gpu/cuda_check.hpp"

// The symbol a cublas_v2.h name stands for (cublasSgemv -> "cublasSgemv_v2").
#define RBF_CUBLAS_SYMBOL_TEXT(name) #name
#define RBF_CUBLAS_SYMBOL(name) RBF_CUBLAS_SYMBOL_TEXT(name)

namespace rbf::gpu {
namespace {

const std::string kSoname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);

void* open_library(std::string& errors) {
  std::string candidates[] = {kSoname,
#ifdef RBF_CUDA_LIBRARY_DIR
                              std::string(RBF_CUDA_LIBRARY_DIR) + "/" + kSoname,
#endif
                              "libcublas.so"};
  for (const std::string& name : candidates) {
    if (void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return library;
    const char* why = dlerror();
    errors += errors.empty() ? "" : "; ";
    errors += why != nullptr ? why : name + " not found";
  }
  return nullptr;
}

template <typename F>
void resolve(void* library, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(library, name));
  if (out == nullptr) throw Error("the cuBLAS library found (" + kSoname + ") lacks " + name);
}

CublasLibrary load() {
  std::string errors;
  void* library = open_library(errors);
  if (library == nullptr) throw Error("cuBLAS (" + kSoname + ") could not be loaded: " + errors);
  CublasLibrary l;
  resolve(library, RBF_CUBLAS_SYMBOL(cublasCreate), l.create);
  resolve(library, RBF_CUBLAS_SYMBOL(cublasDestroy), l.destroy);
  resolve(library, RBF_CUBLAS_SYMBOL(cublasSetStream), l.set_stream);
  resolve(library, RBF_CUBLAS_SYMBOL(cublasSetPointerMode), l.set_pointer_mode);
  resolve(library, RBF_CUBLAS_SYMBOL(cublasSetMathMode), l.set_math_mode);
  resolve(library, RBF_CUBLAS_SYMBOL(cublasSgemv), l.sgemv);
  resolve(library, RBF_CUBLAS_SYMBOL(cublasDgemv), l.dgemv);
  resolve(library, RBF_CUBLAS_SYMBOL(cublasSgemm), l.sgemm);
  resolve(library, RBF_CUBLAS_SYMBOL(cublasDgemm), l.dgemm);
  resolve(library, RBF_CUBLAS_SYMBOL(cublasSsyrk), l.ssyrk);
  resolve(library, RBF_CUBLAS_SYMBOL(cublasDsyrk), l.dsyrk);
  return l;
}

}  // namespace

const CublasLibrary& cublas() {
  // A failed load throws out of the initializer, so the next call tries again.
  static const CublasLibrary loaded = load();
  return loaded;
}

}  // namespace rbf::gpu
