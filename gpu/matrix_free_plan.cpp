// The matrix-free pass's host-side plan: tensor or CUDA cores, row splits from the device's
// occupancy, operand sizes, and whether one power of two can scale all split-FP16 operands.
#include "gpu/matrix_free_plan.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>

#include "gpu/kernel_constants.hpp"
#include "gpu/matrix_free_kernels.hpp"
#include "gpu/matrix_free_tensor_core_kernels.hpp"

namespace rbf::gpu {

int matrix_free_norm_shift(double mean_row_norm2) {
  if (!(mean_row_norm2 > 0.0) || !std::isfinite(mean_row_norm2)) return 0;
  // 2^s = |x| sqrt(2 d) for rows of typical size |x|, mean ||x||^2 = d |x|^2: then the norm entry
  // is ~sqrt(d / 2) times the largest feature on the row side and the candidate side alike.
  const long s = std::lround(0.5 * std::log2(2.0 * mean_row_norm2));
  return static_cast<int>(std::max(-60L, std::min(60L, s)));
}

void matrix_free_choose_scale(MatrixFreePlan& plan, const MatrixFreeRange& range, int d) {
  // The largest entries of x~ = [x, ||x||^2 2^-s] and a~ = L [2 g c, -g 2^s] (their layout is
  // in matrix_free_tensor_core_kernels.cu), and bounds on the sums of their magnitudes.
  const double norm_entry = std::ldexp(range.max_row_norm2, -plan.norm_shift);
  const double gain_entry = kLog2e * std::ldexp(range.max_gain, plan.norm_shift);
  const double row_max = std::max(range.max_feature, norm_entry);
  const double candidate_max = std::max(2.0 * kLog2e * range.max_gain_feature, gain_entry);
  const double row_sum = d * range.max_feature + norm_entry;
  const double candidate_sum = 2.0 * kLog2e * d * range.max_gain_feature + gain_entry;
  plan.unit_scale = false;
  plan.unit_exponent = 0;
  if (!std::isfinite(row_sum) || !std::isfinite(candidate_sum)) return;
  if (!(row_max > 0.0) || !(candidate_max > 0.0)) {  // all products are 0: any scale will do
    plan.unit_scale = true;
    return;
  }
  // Balanced: 2^e row_max = 2^-e candidate_max, up to a factor sqrt(2).
  const long e = std::lround(0.5 * std::log2(candidate_max / row_max));
  if (e < -100 || e > 100) return;
  // Range: the larger side stays far below FP16's 65504 after hi + lo rounding.
  if (std::max(std::ldexp(row_max, static_cast<int>(e)), std::ldexp(candidate_max, static_cast<int>(-e))) >
      std::ldexp(1.0, 15))
    return;
  // Precision: an entry v is hi + lo to ~2^-22 |v|, as with scales of its own, until lo
  // falls into FP16's subnormals (|v| < 2^-3); below that it is exact to 2^-25 absolutely.
  // An exponent then errs by at most 2^-25 (sum |x'| + sum |a'|) beyond its own rounding:
  // that bound, with every entry at its maximum and every error aligned, stays under 2^-17
  // (measured errors are ~1e-6 of sum |phi v| at 2^-20). Data whose rows or candidates differ
  // by orders of magnitude (an outlier row) keep their own scales.
  const double floor_bound =
      std::ldexp(row_sum, static_cast<int>(e) - 25) + std::ldexp(candidate_sum, static_cast<int>(-e) - 25);
  if (floor_bound > std::ldexp(1.0, -17)) return;
  plan.unit_scale = true;
  plan.unit_exponent = static_cast<int>(e);
}

int matrix_free_padded_count(int count) {
  return blocks_for(static_cast<std::size_t>(std::max(count, 0)), kMatrixFreeCandidates) * kMatrixFreeCandidates;
}

template <typename T>
MatrixFreePlan plan_matrix_free(int padded_rows, int count, int d, int device, bool tensor_cores_allowed) {
  MatrixFreePlan plan;
  plan.tensor_cores = tensor_cores_allowed && std::is_same<T, float>::value && d >= 1 &&
                      d <= kMatrixFreeWideMaxD && matrix_free_tensor_cores_compiled_for(device);
  const MatrixFreeKernelShape kernel =
      plan.tensor_cores ? matrix_free_tensor_core_shape(d) : matrix_free_cuda_core_shape<T>(d);
  plan.row_floats = kernel.row_floats;
  plan.candidate_floats = kernel.candidate_floats;
  int sms = 1;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) sms = 1;
  const int candidate_blocks =
      std::max(1, blocks_for(static_cast<std::size_t>(std::max(count, 1)), kernel.candidates));
  int resident = 1;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel.kernel, kernel.threads,
                                                    static_cast<std::size_t>(kernel.shared_bytes)) != cudaSuccess ||
      resident < 1) {
    (void)cudaGetLastError();
    resident = 1;
  }
  // About four waves of blocks, so the last wave's imbalance stays small, and whole
  // kMatrixFreeRows tiles per split.
  const int target = sms * resident * 4;
  const int tiles = std::max(1, padded_rows / kMatrixFreeRows);
  int splits = std::min(tiles, std::max(1, (target + candidate_blocks - 1) / candidate_blocks));
  const int tiles_per_split = (tiles + splits - 1) / splits;
  plan.splits = (tiles + tiles_per_split - 1) / tiles_per_split;
  plan.rows_per_split = tiles_per_split * kMatrixFreeRows;
  return plan;
}

template MatrixFreePlan plan_matrix_free<float>(int, int, int, int, bool);
template MatrixFreePlan plan_matrix_free<double>(int, int, int, int, bool);

}  // namespace rbf::gpu
