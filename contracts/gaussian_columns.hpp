// Canonical evaluation of Gaussian candidate columns and block dot products on the CPU.
//
// Stored and matrix-free (tile by tile) candidates must give bit-identical results, so
// every value and every reduction here is defined by row index alone: a column value
// depends only on (row, candidate), and a dot product is summed over fixed row blocks of
// kRowBlock rows, in ascending order, each with a fixed 8-lane accumulation pattern.
// Nothing depends on memory alignment, tile width or thread count.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace rbf::model {

constexpr std::size_t kRowBlock = 2048;

// Dot product of a[0..n) and b[0..n) with a fixed summation order.
template <typename T>
inline T block_dot(const T* a, const T* b, std::size_t n) {
  T acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) acc[j] += a[i + j] * b[i + j];
  }
  T tail = 0;
  for (; i < n; ++i) tail += a[i] * b[i];
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail;
}

// Dot product over all n rows: the sum of block_dot over row blocks, in order.
template <typename T>
inline T full_dot(const T* a, const T* b, std::size_t n) {
  T sum = 0;
  for (std::size_t r0 = 0; r0 < n; r0 += kRowBlock) sum += block_dot(a + r0, b + r0, std::min(kRowBlock, n - r0));
  return sum;
}

// phi(x_i; center, gamma) = exp(-gamma * ||x_i - center||^2) for rows [r0, r0 + rows) of
// the column-major n x d matrix x, written to out[0..rows). `acc` is scratch of `rows`.
// The distance is summed feature by feature (exact, never negative), so no clamping is
// needed and each value depends on its row alone.
template <typename T>
inline void gaussian_block(const T* x, std::size_t n, std::size_t d, const T* center, T gamma,
                           std::size_t r0, std::size_t rows, T* out, T* acc) {
  std::fill(acc, acc + rows, T(0));
  for (std::size_t k = 0; k < d; ++k) {
    const T* xk = x + k * n + r0;
    const T ck = center[k];
    for (std::size_t i = 0; i < rows; ++i) {
      const T diff = xk[i] - ck;
      acc[i] += diff * diff;
    }
  }
  for (std::size_t i = 0; i < rows; ++i) out[i] = std::exp(-gamma * acc[i]);
}

// gamma = 1 / (2 sigma^2), the factor every backend uses in the exponent.
template <typename T>
inline T gaussian_gamma(T sigma) {
  return T(1) / (T(2) * sigma * sigma);
}

}  // namespace rbf::model
