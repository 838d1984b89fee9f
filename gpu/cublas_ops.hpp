// float/double overloads of the few cuBLAS calls the backends make (device pointer mode).
#pragma once

#include "gpu/cublas_library.hpp"

namespace rbf::gpu::blas {

inline cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t op, int m, int n, const float* alpha,
                           const float* a, int lda, const float* x, const float* beta, float* y) {
  return cublas().sgemv(h, op, m, n, alpha, a, lda, x, 1, beta, y, 1);
}
inline cublasStatus_t gemv(cublasHandle_t h, cublasOperation_t op, int m, int n,
                           const double* alpha, const double* a, int lda, const double* x,
                           const double* beta, double* y) {
  return cublas().dgemv(h, op, m, n, alpha, a, lda, x, 1, beta, y, 1);
}

inline cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const float* alpha, const float* a, int lda,
                           const float* b, int ldb, const float* beta, float* c, int ldc) {
  return cublas().sgemm(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const double* alpha, const double* a, int lda,
                           const double* b, int ldb, const double* beta, double* c, int ldc) {
  return cublas().dgemm(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

inline cublasStatus_t syrk(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, int n, int k,
                           const float* alpha, const float* a, int lda, const float* beta, float* c, int ldc) {
  return cublas().ssyrk(h, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}
inline cublasStatus_t syrk(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, int n, int k,
                           const double* alpha, const double* a, int lda, const double* beta, double* c,
                           int ldc) {
  return cublas().dsyrk(h, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}

}  // namespace rbf::gpu::blas
