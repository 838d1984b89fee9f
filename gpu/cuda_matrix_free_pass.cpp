// The CUDA backend's matrix-free mode: operands of the fused pass (matrix_free_kernels.cu),
// one pass z = Phi_C^T v without Phi_C, and the reset statistics from such passes.
#include "gpu/cuda_backend.hpp"
#include "gpu/cuda_backend_internal.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_timing.hpp"
#include "gpu/kernel_constants.hpp"
#include "gpu/matrix_free_kernels.hpp"
#include "gpu/matrix_free_plan.hpp"

namespace rbf::gpu {
namespace {

// Outputs (k) up to this many get their reset statistics from fused passes, one per output;
// beyond it, evaluated tiles and one GEMM are cheaper.
constexpr std::size_t kMaxFreeResetOutputs = 8;
static_assert(kRowPadding % kMatrixFreeRows == 0, "padded rows are whole matrix-free row tiles");
// The stored pass reads Phi_C at about this share of the memory's peak bandwidth (it runs at
// the device-to-device copy rate, docs/BENCHMARKS.md).
constexpr double kStoredPassShareOfPeak = 0.9;

// Peak memory bandwidth in bytes/s from the device's memory clock and bus, 0 when unknown.
double peak_memory_bandwidth(int device) {
  int clock_khz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0.0;
  }
  return 2.0 * static_cast<double>(clock_khz) * 1e3 * static_cast<double>(bus_bits) / 8.0;  // double data rate
}

}  // namespace

template <typename T>
void CudaBackend<T>::prepare_matrix_free() {
  const int d = as_int(d_), count = as_int(candidates_);
  const cudaStream_t stream = context_.stream();
  free_plan_ = plan_matrix_free<T>(as_int(npad_), count, d, context_.device());
  free_plan_.norm_shift = matrix_free_norm_shift(mean_row_norm2_);
  MatrixFreeRange range = free_rows_range_;
  range.max_gain = free_candidates_range_.max_gain;
  range.max_gain_feature = free_candidates_range_.max_gain_feature;
  matrix_free_choose_scale(free_plan_, range, d);
  rows_aug_ = Buffer<T>(context_, npad_ * static_cast<std::size_t>(free_plan_.row_floats), Placement::device,
                        "the matrix-free rows");
  candidates_aug_ = Buffer<T>(context_,
                              static_cast<std::size_t>(matrix_free_padded_count(count)) *
                                  static_cast<std::size_t>(free_plan_.candidate_floats),
                              Placement::device, "the matrix-free candidates");
  RBF_CUDA_CHECK(launch_matrix_free_rows(xt_.get(), npad_, as_int(n_), as_int(npad_), d, free_plan_,
                                         rows_aug_.get(), stream));
  RBF_CUDA_CHECK(launch_matrix_free_candidates(centers_.get(), gamma_.get(), count, d, free_plan_,
                                               candidates_aug_.get(), stream));
  const std::size_t splits = static_cast<std::size_t>(free_plan_.splits);
  if (free_plan_.splits > partition_.splits)
    partial_ = Buffer<T>(context_, candidates_ * splits, Placement::device, "the scoring-pass partial sums");
  partial_square_ = Buffer<T>(context_, candidates_ * splits, Placement::device, "the reset-pass partial sums");
}

template <typename T>
void CudaBackend<T>::decide_storage(const model::StorageRequest& storage) {
  // The contract's rule on the padded Phi_C, within the caller's budget and the GPU's, and the
  // device memory free beside headroom for Q.
  const double column_bytes = static_cast<double>(npad_) * sizeof(T);
  model::StorageFacts facts = model::storage_facts(storage, npad_, candidates_, sizeof(T),
                                                   static_cast<double>(context_.free_memory()) -
                                                       column_bytes * static_cast<double>(kBasisHeadroomColumns));
  if (static_cast<double>(budget_bytes()) < facts.budget_bytes) {
    facts.budget_bytes = static_cast<double>(budget_bytes());
    facts.budget_key = "backend.gpu_memory_budget_mb";
  }
  storage_ = model::decide_candidate_storage(facts);
  // Where it fits, the GPU's own costs of one pass decide: a timed fused pass (after a warm-up
  // launch; any vector will do: y's first column) against reading Phi_C at the share of the
  // peak bandwidth a stored pass reaches.
  const double bandwidth = kStoredPassShareOfPeak * peak_memory_bandwidth(context_.device());
  if (storage_.store && bandwidth > 0.0) {
    prepare_matrix_free();
    facts.computed_ms =
        best_device_ms(context_.stream(), 1, [&] { matrix_free_pass(y_.get(), partial_.get(), nullptr); });
    facts.stored_ms = facts.phi_bytes / bandwidth * 1e3;
    storage_ = model::decide_candidate_storage(facts);
  }
  stored_ = storage_.store;
}

template <typename T>
void CudaBackend<T>::matrix_free_pass(const T* v, T* out, T* out_square) {
  // Weighted rows: the pass forms the unscaled phi, so s moves onto v (phi'^T v = phi^T (s v))
  // and the squares take s^2.
  if (!row_scale_.empty()) {
    RBF_CUDA_CHECK(launch_multiply(v, row_scale_.get(), scaled_v_.get(), as_int(npad_), context_.stream()));
    v = scaled_v_.get();
  }
  const MatrixFreePass<T> pass{rows_aug_.get(), candidates_aug_.get(), as_int(n_), as_int(npad_),
                               as_int(candidates_), as_int(d_), v, out, out_square, free_plan_.splits,
                               free_plan_.rows_per_split, row_weight_.empty() ? nullptr : row_weight_.get()};
  RBF_CUDA_CHECK(launch_matrix_free_pass(pass, free_plan_, context_.stream()));
}

template <typename T>
bool CudaBackend<T>::matrix_free_reset() {
  if (k_ > kMaxFreeResetOutputs) return false;
  const cudaStream_t stream = context_.stream();
  const int count = as_int(candidates_), splits = free_plan_.splits;
  // q0^T phi_c and ||phi_c||^2, then phi_c^T E_j per output: gq_ column by column.
  matrix_free_pass(q_.get(), partial_.get(), partial_square_.get());
  RBF_CUDA_CHECK(launch_sum_splits(partial_.get(), splits, count, gq_.get(), stream));
  for (std::size_t j = 0; j < k_; ++j) {
    matrix_free_pass(e_.get() + j * npad_, partial_.get(), nullptr);
    RBF_CUDA_CHECK(launch_sum_splits(partial_.get(), splits, count, gq_.get() + (j + 1) * candidates_, stream));
  }
  finish_reset(partial_square_.get(), splits);
  return true;
}

#define RBF_INSTANTIATE_MATRIX_FREE(T)                                 \
  template void CudaBackend<T>::prepare_matrix_free();                 \
  template void CudaBackend<T>::decide_storage(const model::StorageRequest&); \
  template void CudaBackend<T>::matrix_free_pass(const T*, T*, T*);    \
  template bool CudaBackend<T>::matrix_free_reset();
RBF_INSTANTIATE_MATRIX_FREE(float)
RBF_INSTANTIATE_MATRIX_FREE(double)
#undef RBF_INSTANTIATE_MATRIX_FREE

}  // namespace rbf::gpu
