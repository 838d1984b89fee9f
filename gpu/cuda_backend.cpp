// The CUDA backend's host side: device context, data upload, candidate buffers and checks.
// The passes, CGS2, validation and state transfer live beside it (cuda_*.cpp).
#include "gpu/cuda_backend.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "gpu/candidate_kernels.hpp"
#include "gpu/cgs_kernels.hpp"
#include "gpu/cuda_backend_internal.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/kernel_constants.hpp"
#include "gpu/matrix_free_plan.hpp"

namespace rbf::gpu {
namespace {

constexpr std::size_t kInitialBasisColumns = 64;
// Matrix-free tiles are capped so the scratch stays small next to the budget.
constexpr double kMaxTileBytes = 256.0 * 1024 * 1024;

}  // namespace

template <typename T>
CudaBackend<T>::CudaBackend(std::shared_ptr<Context> context, const model::GpuOptions& options)
    : options_(options), shared_context_(std::move(context)), context_(*shared_context_) {
  input_placement_ = context_.mapped_inputs() ? Placement::mapped_host : Placement::device;
  constants_ = Buffer<T>(context_, 3, Placement::device, "cuBLAS constants");
  const T values[3] = {T(1), T(0), T(-1)};
  RBF_CUDA_CHECK(cudaMemcpyAsync(constants_.get(), values, sizeof(values), cudaMemcpyHostToDevice,
                                 context_.stream()));
  tickets_ = Buffer<unsigned int>(context_, kTicketCount, Placement::device, "reduction tickets");
  context_.synchronize();
}

template <typename T>
void CudaBackend<T>::require_training_data(const char* call) const {
  if (n_ == 0)
    throw RuntimeError(std::string("gpu backend: ") + call + " called before set_training_data");
}

template <typename T>
void CudaBackend<T>::require_candidates(const char* call) const {
  require_training_data(call);
  if (candidates_ == 0)
    throw RuntimeError(std::string("gpu backend: ") + call + " called before set_candidates");
}

template <typename T>
void CudaBackend<T>::release_candidates() {
  for (Buffer<T>* b : {&centers_, &gamma_, &phi_, &tile_, &column_, &partial_, &gq_, &history_,
                       &rows_aug_, &candidates_aug_, &partial_square_, &shard_sums_})
    b->release();
  shard_scores_.release();
  rows_.release();
  norm2_.release();
  proj2_.release();
  g_.release();
  used_.release();
  used_host_.clear();
  history_columns_ = 0;
  reduce_values_.release();
  reduce_indices_.release();
  candidates_ = 0;
  tile_columns_ = 0;
  stored_ = false;
  selection_ready_ = false;
}

template <typename T>
void CudaBackend<T>::release_validation() {
  for (Buffer<T>* b : {&xvt_, &phi_val_, &weights_, &val_out_, &val_out_host_})
    b->release();
  for (Buffer<double>* b : {&val_target_, &val_weight_, &val_offset_, &val_bias_, &val_row_weight_}) b->release();
  val_classes_.release();
  nv_ = nvpad_ = val_columns_ = val_capacity_ = 0;
}

template <typename T>
void CudaBackend<T>::set_training_data(const T* x, std::size_t n, std::size_t d, const T* y,
                                       std::size_t k) {
  context_.activate();
  column_ahead_ = kNoColumn;  // new rows
  if (n == 0 || d == 0 || k == 0) throw InputError("the training set is empty");
  if (n > static_cast<std::size_t>(INT_MAX) - kRowPadding || d > static_cast<std::size_t>(INT_MAX))
    throw Error("gpu backend: " + std::to_string(n) + " rows of " + std::to_string(d) +
                " features exceed the CUDA backend's 32-bit indexing");
  // Free everything that depends on the old data first, so its memory counts as free.
  release_candidates();
  release_validation();
  for (Buffer<T>* b : {&xt_, &y_, &e_, &q_, &h_, &a_, &node_, &row_scale_, &row_weight_, &scaled_v_}) b->release();
  cgs_partial_.release();
  qh_.release();
  for (Buffer<float>* b : {&qh_scale_, &compact_partial_, &compact_encode_}) b->release();
  compact_stats_.release();
  compact_ = basis_set_ = false;
  results_.release();
  results_host_.release();
  n_ = npad_ = d_ = k_ = nodes_ = basis_capacity_ = 0;

  const std::size_t npad = round_up(n, kRowPadding);
  // One clear message up front instead of a failure halfway through the allocations.
  const std::size_t device_values =
      npad * ((input_placement_ == Placement::device ? d + k : 0) + k + kInitialBasisColumns);
  context_.require_free(device_values * sizeof(T),
                        "the training data (" + std::to_string(n) + " rows)");

  xt_ = Buffer<T>(context_, d * npad, input_placement_, "the training features");
  y_ = Buffer<T>(context_, k * npad, input_placement_, "the training targets");
  // Feature-major X and column-major Y keep every device access coalesced.
  std::vector<T> staging;
  T* xt = xt_.host();
  T* yc = y_.host();
  if (input_placement_ == Placement::device) {
    staging.assign((d + k) * npad, T(0));
    xt = staging.data();
    yc = staging.data() + d * npad;
  }
  double norm2_sum = 0.0;
  free_rows_range_ = MatrixFreeRange{};
  for (std::size_t i = 0; i < n; ++i) {
    double norm2 = 0.0, max_abs = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
      xt[j * npad + i] = x[i * d + j];
      norm2 += static_cast<double>(x[i * d + j]) * static_cast<double>(x[i * d + j]);
      max_abs = std::max(max_abs, std::fabs(static_cast<double>(x[i * d + j])));
    }
    norm2_sum += norm2;
    free_rows_range_.add_row(max_abs, norm2);
  }
  mean_row_norm2_ = n > 0 ? norm2_sum / static_cast<double>(n) : 0.0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < k; ++j) yc[j * npad + i] = y[i * k + j];
  if (input_placement_ == Placement::device) {
    RBF_CUDA_CHECK(cudaMemcpyAsync(xt_.get(), xt, d * npad * sizeof(T), cudaMemcpyHostToDevice,
                                   context_.stream()));
    RBF_CUDA_CHECK(cudaMemcpyAsync(y_.get(), yc, k * npad * sizeof(T), cudaMemcpyHostToDevice,
                                   context_.stream()));
  }
  e_ = Buffer<T>(context_, k * npad, Placement::device, "the residual E");
  a_ = Buffer<T>(context_, k, Placement::device, "q^T E");
  n_ = n;
  npad_ = npad;
  d_ = d;
  k_ = k;
  h_offset_ = kResultA + k;
  a_ready_ = false;
  ensure_basis_capacity(kInitialBasisColumns);
  // Asked for, the compact basis is there from the start (else reserve_nodes decides).
  if (options_.basis == model::GpuBasis::half && compact_allowed()) enter_compact_basis("as backend.gpu_basis asks");
  context_.synchronize();  // the staging vector goes out of scope; surface errors here
}

template <typename T>
void CudaBackend<T>::set_row_scale(const T* s) {
  context_.activate();
  require_training_data("set_row_scale");
  for (Buffer<T>* b : {&row_scale_, &row_weight_, &scaled_v_}) b->release();
  if (s == nullptr) return;
  std::vector<T> host(2 * npad_, T(0));  // s, then s^2; padding rows weigh 0
  for (std::size_t i = 0; i < n_; ++i) {
    host[i] = s[i];
    host[npad_ + i] = s[i] * s[i];
  }
  row_scale_ = Buffer<T>(context_, npad_, Placement::device, "the row weights");
  row_weight_ = Buffer<T>(context_, npad_, Placement::device, "the row weights");
  scaled_v_ = Buffer<T>(context_, npad_, Placement::device, "the row weights");
  const cudaStream_t stream = context_.stream();
  RBF_CUDA_CHECK(cudaMemcpyAsync(row_scale_.get(), host.data(), npad_ * sizeof(T), cudaMemcpyHostToDevice, stream));
  RBF_CUDA_CHECK(
      cudaMemcpyAsync(row_weight_.get(), host.data() + npad_, npad_ * sizeof(T), cudaMemcpyHostToDevice, stream));
  context_.synchronize();  // the host copy goes out of scope
}

template <typename T>
void CudaBackend<T>::set_validation_data(const T* x, std::size_t nv) {
  context_.activate();
  require_training_data("set_validation_data");
  release_validation();
  if (nv == 0) return;
  if (nv > static_cast<std::size_t>(INT_MAX) - kRowPadding)
    throw Error("gpu backend: " + std::to_string(nv) + " validation rows exceed 32-bit indexing");
  const std::size_t nvpad = round_up(nv, kRowPadding);
  xvt_ = Buffer<T>(context_, d_ * nvpad, input_placement_, "the validation features");
  std::vector<T> staging;
  T* xt = xvt_.host();
  if (input_placement_ == Placement::device) {
    staging.assign(d_ * nvpad, T(0));
    xt = staging.data();
  }
  for (std::size_t i = 0; i < nv; ++i)
    for (std::size_t j = 0; j < d_; ++j) xt[j * nvpad + i] = x[i * d_ + j];
  if (input_placement_ == Placement::device)
    RBF_CUDA_CHECK(cudaMemcpyAsync(xvt_.get(), xt, d_ * nvpad * sizeof(T), cudaMemcpyHostToDevice,
                                   context_.stream()));
  nv_ = nv;
  nvpad_ = nvpad;
  context_.synchronize();
}

template <typename T>
std::size_t CudaBackend<T>::budget_bytes() const {
  if (options_.memory_budget_mb > 0.0)
    return static_cast<std::size_t>(options_.memory_budget_mb * 1024.0 * 1024.0);
  return static_cast<std::size_t>(0.8 * static_cast<double>(context_.free_memory()));
}

template <typename T>
void CudaBackend<T>::set_candidates(const T* centers, const T* widths, const std::size_t* rows,
                                    std::size_t count, const model::StorageRequest& storage) {
  context_.activate();
  require_training_data("set_candidates");
  column_ahead_ = kNoColumn;  // new candidates
  release_candidates();
  if (count == 0) throw RuntimeError("gpu backend: the candidate pool is empty");
  if (count > static_cast<std::size_t>(INT_MAX) / 2)
    throw Error("gpu backend: " + std::to_string(count) + " candidates exceed 32-bit indexing");
  std::vector<T> gamma(count);
  std::vector<long long> row_index(count);
  free_candidates_range_ = MatrixFreeRange{};
  for (std::size_t c = 0; c < count; ++c) {
    if (!(widths[c] > T(0))) throw InputError("candidate widths must be positive");
    if (rows[c] >= total_rows())
      throw RuntimeError("gpu backend: candidate " + std::to_string(c) + " names row " +
                         std::to_string(rows[c]) + " of " + std::to_string(total_rows()));
    gamma[c] = T(1) / (T(2) * widths[c] * widths[c]);  // as contracts/gaussian_columns.hpp
    double max_abs = 0.0;
    for (std::size_t j = 0; j < d_; ++j) max_abs = std::max(max_abs, std::fabs(static_cast<double>(centers[c * d_ + j])));
    free_candidates_range_.add_candidate(max_abs, static_cast<double>(gamma[c]));
    // A shard keeps its own rows' local index, and -1 for rows another shard holds.
    const std::size_t first = sharded() ? shards_->first_row() : 0;
    row_index[c] = rows[c] >= first && rows[c] - first < n_ ? static_cast<long long>(rows[c] - first) : -1;
  }

  const cudaStream_t stream = context_.stream();
  centers_ = Buffer<T>(context_, count * d_, Placement::device, "the candidate centers");
  gamma_ = Buffer<T>(context_, count, Placement::device, "the candidate widths");
  rows_ = Buffer<long long>(context_, count, Placement::device, "the candidate rows");
  RBF_CUDA_CHECK(cudaMemcpyAsync(centers_.get(), centers, count * d_ * sizeof(T),
                                 cudaMemcpyHostToDevice, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(gamma_.get(), gamma.data(), count * sizeof(T),
                                 cudaMemcpyHostToDevice, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(rows_.get(), row_index.data(), count * sizeof(long long),
                                 cudaMemcpyHostToDevice, stream));

  norm2_ = Buffer<double>(context_, count, Placement::device, "the candidate statistics");
  proj2_ = Buffer<double>(context_, count, Placement::device, "the candidate statistics");
  g_ = Buffer<double>(context_, count * k_, Placement::device, "the candidate statistics");
  used_ = Buffer<unsigned char>(context_, count, Placement::device, "the candidate marks");
  used_host_.assign(count, 0);
  history_ = Buffer<T>(context_, count * basis_capacity_, Placement::device,
                       "the projection history");
  partition_ = make_score_partition(npad_, as_int(count), context_.properties().multiProcessorCount,
                                    sizeof(T));
  partial_ = Buffer<T>(context_, count * static_cast<std::size_t>(partition_.splits),
                       Placement::device, "the scoring-pass partial sums");
  gq_ = Buffer<T>(context_, count * (k_ + 1), Placement::device, "the bias-model projections");
  const std::size_t reduce_slots =
      (2 + std::max<std::size_t>(k_, 1)) *
      std::max({static_cast<std::size_t>(kReduceBlocks), (count + 31) / 32 + 1, static_cast<std::size_t>(cgs_blocks(as_int(npad_)))});
  reduce_values_ = Buffer<double>(context_, reduce_slots, Placement::device, "reduction scratch");
  reduce_indices_ =
      Buffer<long long>(context_, reduce_slots, Placement::device, "reduction scratch");

  const double column_bytes = static_cast<double>(npad_) * sizeof(T);
  const double limit = std::min(storage.budget_bytes, static_cast<double>(budget_bytes()));
  candidates_ = count;
  decide_storage(storage);
  if (stored_) {
    for (Buffer<T>* b : {&rows_aug_, &candidates_aug_, &partial_square_}) b->release();
    phi_ = Buffer<T>(context_, npad_ * count, Placement::device, "the candidate matrix Phi_C");
    tile_columns_ = count;
    evaluate_stored_columns();
  } else {
    // Tiles of whole scoring groups, as large as the budget (and kMaxTileBytes) allow.
    const double tile_limit = std::min(std::max(limit, 0.0) / 2.0, kMaxTileBytes);
    std::size_t columns = static_cast<std::size_t>(tile_limit / column_bytes);
    columns = columns / kScoreColumns * kScoreColumns;
    tile_columns_ = std::min(count, std::max<std::size_t>(columns, kScoreColumns));
    tile_ = Buffer<T>(context_, npad_ * tile_columns_, Placement::device,
                      "a matrix-free candidate tile");
    column_ = Buffer<T>(context_, npad_, Placement::device, "a candidate column");
    if (candidates_aug_.get() == nullptr) prepare_matrix_free();
  }
  selection_ready_ = false;
  context_.synchronize();
}

template <typename T>
void CudaBackend<T>::mark_used(std::size_t c) {
  context_.activate();
  require_candidates("mark_used");
  if (c >= candidates_) throw RuntimeError("gpu backend: mark_used(" + std::to_string(c) + ") out of range");
  RBF_CUDA_CHECK(cudaMemsetAsync(used_.get() + c, 1, 1, context_.stream()));
  used_host_[c] = 1;
  selection_ready_ = false;
}

template <typename T>
std::size_t CudaBackend<T>::memory_bytes() const {
  std::size_t total = 0;
  for (const Buffer<T>* b : {&xt_, &y_, &e_, &xvt_, &phi_val_, &weights_, &val_out_, &centers_,
                             &gamma_, &phi_, &tile_, &column_, &partial_, &gq_, &q_, &h_, &a_,
                             &history_, &constants_, &node_, &cgs_partial_, &rows_aug_,
                             &candidates_aug_, &partial_square_, &shard_sums_})
    total += b->bytes();
  for (const Buffer<double>* b : {&norm2_, &proj2_, &g_, &reduce_values_, &results_, &shard_scores_,
                                  &val_target_, &val_weight_, &val_offset_, &val_bias_})
    total += b->bytes();
  for (const Buffer<float>* b : {&qh_scale_, &compact_partial_, &compact_encode_}) total += b->bytes();
  total += qh_.bytes() + compact_stats_.bytes();
  return total + rows_.bytes() + used_.bytes() + reduce_indices_.bytes() + tickets_.bytes() + val_classes_.bytes();
}

// Instantiates the class and the members defined above; the other cuda_*.cpp files
// instantiate their own members.
template class CudaBackend<float>;
template class CudaBackend<double>;

}  // namespace rbf::gpu
