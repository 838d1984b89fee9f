// What the parity suites share: relative differences, the device check, and the skip that
// makes a GPU case print "SKIPPED: no CUDA device" (which ctest reports as skipped).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "contracts/gpu_entry_points.hpp"

namespace rbf::test {

// ||a - b|| / ||b|| (the plain norm of the difference when b is zero).
inline double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    norm += b[i] * b[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

inline double relative(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

// True when this build has CUDA and a device answers (asked once).
inline bool gpu_present() {
  static const bool present = gpu::built_with_cuda() && !gpu::query_devices().devices.empty();
  return present;
}

}  // namespace rbf::test

// Returns from a GPU test case, with the message ctest counts as a skip, when there is no device
// (always in a build without the GPU tests).
#ifdef RBF_TEST_GPU
#define RBF_SKIP_WITHOUT_GPU()              \
  do {                                      \
    if (!rbf::test::gpu_present()) {        \
      MESSAGE("SKIPPED: no CUDA device");   \
      return;                               \
    }                                       \
  } while (0)
// The same for the cases that need two devices (several GPUs of one host).
#define RBF_SKIP_WITHOUT_TWO_GPUS()                                \
  do {                                                             \
    if (rbf::gpu::query_devices().devices.size() < 2) {            \
      MESSAGE("SKIPPED: fewer than two CUDA devices");             \
      return;                                                      \
    }                                                              \
  } while (0)
#else
#define RBF_SKIP_WITHOUT_TWO_GPUS() RBF_SKIP_WITHOUT_GPU()
#define RBF_SKIP_WITHOUT_GPU()            \
  do {                                    \
    MESSAGE("SKIPPED: no CUDA device");   \
    return;                               \
  } while (0)
#endif
