// The CUDA backend's host side: buffers, the per-call sequence of kernels and cuBLAS calls,
// and the single small copy back that ends every call which returns values.
#include "gpu/cuda_backend.hpp"

#include <algorithm>
#include <climits>
#include <utility>
#include <cmath>
#include <string>

#include "gpu/cublas_ops.hpp"
#include "gpu/cuda_check.hpp"
#include "model/contracts/candidate_storage.hpp"
#include "model/contracts/gaussian_columns.hpp"

namespace rbf::gpu {
namespace {

constexpr std::size_t kInitialBasisColumns = 64;
constexpr std::size_t kInitialValidationColumns = 64;
// Matrix-free tiles are capped so the scratch stays small next to the budget.
constexpr double kMaxTileBytes = 256.0 * 1024 * 1024;
// Headroom kept free when deciding to store Phi_C, for Q to grow (columns of N values).
constexpr std::size_t kBasisHeadroomColumns = 128;

std::size_t round_up(std::size_t v, std::size_t m) { return (v + m - 1) / m * m; }
int as_int(std::size_t v) { return static_cast<int>(v); }

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
  for (Buffer<T>* b : {&centers_, &gamma_, &phi_, &tile_, &column_, &partial_, &gq_, &history_})
    b->release();
  rows_.release();
  norm2_.release();
  proj2_.release();
  g_.release();
  used_.release();
  used_host_.clear();
  history_columns_ = 0;
  reduce_values_.release();
  reduce_indices_.release();
  sse_partial_.release();
  candidates_ = 0;
  tile_columns_ = 0;
  stored_ = false;
  selection_ready_ = false;
}

template <typename T>
void CudaBackend<T>::release_validation() {
  for (Buffer<T>* b : {&xvt_, &phi_val_, &weights_, &val_out_, &val_out_host_})
    b->release();
  nv_ = nvpad_ = val_columns_ = val_capacity_ = 0;
}

template <typename T>
void CudaBackend<T>::set_training_data(const T* x, std::size_t n, std::size_t d, const T* y,
                                       std::size_t k) {
  context_.activate();
  if (n == 0 || d == 0 || k == 0) throw InputError("the training set is empty");
  if (n > static_cast<std::size_t>(INT_MAX) - kRowPadding || d > static_cast<std::size_t>(INT_MAX))
    throw Error("gpu backend: " + std::to_string(n) + " rows of " + std::to_string(d) +
                " features exceed the CUDA backend's 32-bit indexing");
  // Free everything that depends on the old data first, so its memory counts as free.
  release_candidates();
  release_validation();
  for (Buffer<T>* b : {&xt_, &y_, &e_, &q_, &h_, &a_, &node_}) b->release();
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
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d; ++j) xt[j * npad + i] = x[i * d + j];
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
  context_.synchronize();  // the staging vector goes out of scope; surface errors here
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
                                    std::size_t count, double memory_budget_bytes) {
  context_.activate();
  require_training_data("set_candidates");
  release_candidates();
  if (count == 0) throw RuntimeError("gpu backend: the candidate pool is empty");
  if (count > static_cast<std::size_t>(INT_MAX) / 2)
    throw Error("gpu backend: " + std::to_string(count) + " candidates exceed 32-bit indexing");
  std::vector<T> gamma(count);
  std::vector<long long> row_index(count);
  for (std::size_t c = 0; c < count; ++c) {
    if (!(widths[c] > T(0))) throw InputError("candidate widths must be positive");
    if (rows[c] >= n_)
      throw RuntimeError("gpu backend: candidate " + std::to_string(c) + " names row " +
                         std::to_string(rows[c]) + " of " + std::to_string(n_));
    gamma[c] = T(1) / (T(2) * widths[c] * widths[c]);  // as model/contracts/gaussian_columns.hpp
    row_index[c] = static_cast<long long>(rows[c]);
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
  sse_partial_ = Buffer<double>(context_, static_cast<std::size_t>(partition_.splits), Placement::device,
                                "the residual partial sums");
  const std::size_t reduce_slots =
      (2 + std::max<std::size_t>(k_, 1)) *
      std::max({static_cast<std::size_t>(kReduceBlocks), (count + 255) / 256 + 1, npad_ / kCgsRows});
  reduce_values_ = Buffer<double>(context_, reduce_slots, Placement::device, "reduction scratch");
  reduce_indices_ =
      Buffer<long long>(context_, reduce_slots, Placement::device, "reduction scratch");

  // Stored when Phi_C fits both the caller's budget and the GPU budget, with room left for Q.
  const double column_bytes = static_cast<double>(npad_) * sizeof(T);
  const double phi_bytes = column_bytes * static_cast<double>(count);
  const double limit = std::min(memory_budget_bytes, static_cast<double>(budget_bytes()));
  const double headroom = column_bytes * static_cast<double>(kBasisHeadroomColumns);
  // The interface's rule within the caller's budget, then the GPU's (padded rows, headroom for Q).
  stored_ = model::store_candidates(n_, count, sizeof(T), memory_budget_bytes) && phi_bytes <= limit &&
            phi_bytes + headroom <= static_cast<double>(context_.free_memory());
  candidates_ = count;
  if (stored_) {
    phi_ = Buffer<T>(context_, npad_ * count, Placement::device, "the candidate matrix Phi_C");
    tile_columns_ = count;
    evaluate_columns(0, count, phi_.get());
  } else {
    // Tiles of whole scoring groups, as large as the budget (and kMaxTileBytes) allow.
    const double tile_limit = std::min(std::max(limit, 0.0) / 2.0, kMaxTileBytes);
    std::size_t columns = static_cast<std::size_t>(tile_limit / column_bytes);
    columns = columns / kScoreColumns * kScoreColumns;
    tile_columns_ = std::min(count, std::max<std::size_t>(columns, kScoreColumns));
    tile_ = Buffer<T>(context_, npad_ * tile_columns_, Placement::device,
                      "a matrix-free candidate tile");
    column_ = Buffer<T>(context_, npad_, Placement::device, "a candidate column");
  }
  selection_ready_ = false;
  context_.synchronize();
}

template <typename T>
void CudaBackend<T>::evaluate_columns(std::size_t first, std::size_t count, T* out) const {
  RBF_CUDA_CHECK(launch_eval_columns(xt_.get(), npad_, as_int(n_), as_int(npad_), as_int(d_),
                                     centers_.get(), gamma_.get(), as_int(first), as_int(count),
                                     out, npad_, context_.stream()));
}

template <typename T>
template <typename Fn>
void CudaBackend<T>::for_each_tile(Fn&& fn) {
  if (stored_) {
    fn(phi_.get(), std::size_t{0}, candidates_);
    return;
  }
  for (std::size_t first = 0; first < candidates_; first += tile_columns_) {
    const std::size_t count = std::min(tile_columns_, candidates_ - first);
    evaluate_columns(first, count, tile_.get());
    fn(tile_.get(), first, count);
  }
}

template <typename T>
const T* CudaBackend<T>::candidate_column(std::size_t c) {
  if (stored_) return phi_.get() + c * npad_;
  evaluate_columns(c, 1, column_.get());
  return column_.get();
}

template <typename T>
void CudaBackend<T>::ensure_basis_capacity(std::size_t columns) {
  if (columns <= basis_capacity_) return;
  const std::size_t capacity = std::max(columns, 2 * basis_capacity_);
  Buffer<T> q(context_, npad_ * capacity, Placement::device,
              "the orthonormal basis Q (" + std::to_string(capacity) + " columns)");
  if (!q_.empty())
    RBF_CUDA_CHECK(cudaMemcpyAsync(q.get(), q_.get(), (nodes_ + 1) * npad_ * sizeof(T),
                                   cudaMemcpyDeviceToDevice, context_.stream()));
  q_ = std::move(q);
  if (!history_.empty()) {
    Buffer<T> z(context_, candidates_ * capacity, Placement::device, "the projection history");
    RBF_CUDA_CHECK(cudaMemcpy2DAsync(z.get(), capacity * sizeof(T), history_.get(),
                                     basis_capacity_ * sizeof(T), basis_capacity_ * sizeof(T),
                                     candidates_, cudaMemcpyDeviceToDevice, context_.stream()));
    history_ = std::move(z);
  }
  h_ = Buffer<T>(context_, 2 * capacity, Placement::device, "CGS2 coefficients");
  // The results keep their values (a after add_node) across the growth.
  Buffer<double> results(context_, h_offset_ + capacity, Placement::device, "call results");
  if (!results_.empty())
    RBF_CUDA_CHECK(cudaMemcpyAsync(results.get(), results_.get(), h_offset_ * sizeof(double),
                                   cudaMemcpyDeviceToDevice, context_.stream()));
  results_ = std::move(results);
  results_host_ = Buffer<double>(context_, h_offset_ + capacity, Placement::pinned_host, "call results");
  basis_capacity_ = capacity;
}

template <typename T>
CandidateStats CudaBackend<T>::stats() const {
  return CandidateStats{as_int(candidates_), as_int(k_), norm2_.get(), proj2_.get(), g_.get(),
                        used_.get()};
}

template <typename T>
History<T> CudaBackend<T>::history(std::size_t column) const {
  return History<T>{history_.get(), basis_capacity_, as_int(column)};
}

template <typename T>
ReduceScratch CudaBackend<T>::scratch() const {
  return ReduceScratch{reduce_values_.get(), reduce_indices_.get(), tickets_.get()};
}

template <typename T>
void CudaBackend<T>::copy_results_back(std::size_t count) {
  RBF_CUDA_CHECK(cudaMemcpyAsync(results_host_.host(), results_.get(), count * sizeof(double),
                                 cudaMemcpyDeviceToHost, context_.stream()));
  context_.synchronize();
}

template <typename T>
void CudaBackend<T>::queue_selection(const SelectRequest& request) {
  RBF_CUDA_CHECK(launch_finish_update<T>(stats(), nullptr, 0, nullptr, history(0), request,
                                         e_.get(), npad_, rows_.get(), nullptr, scratch(),
                                         results_.get(), context_.stream()));
}

template <typename T>
void CudaBackend<T>::prepare_request(SelectRequest& request) {
  if (request.mode != kSelectOls) return;
  if (dependents_marked_ && request.tol < dependent_tol_) revive_dependents();
  request.mark_dependent = 1;
  dependent_tol_ = dependents_marked_ ? std::max(dependent_tol_, request.tol) : request.tol;
  dependents_marked_ = true;
}

template <typename T>
void CudaBackend<T>::revive_dependents() {
  // Exact statistics for the marked candidates from one pass: history^T = Q^T Phi_C gives
  // s_c, Phi_C^T E gives g_c.
  const int npad = as_int(npad_), basis = as_int(nodes_ + 1), k = as_int(k_);
  const int ldg = as_int(candidates_);
  for_each_tile([&](const T* block, std::size_t first, std::size_t count) {
    RBF_CUBLAS_CHECK(blas::gemm(context_.blas(), CUBLAS_OP_T, CUBLAS_OP_N, basis, as_int(count), npad,
                                constants_.get(), q_.get(), npad, block, npad, constants_.get() + 1,
                                history_.get() + first * basis_capacity_, as_int(basis_capacity_)));
    RBF_CUBLAS_CHECK(blas::gemm(context_.blas(), CUBLAS_OP_T, CUBLAS_OP_N, as_int(count), k, npad,
                                constants_.get(), block, npad, e_.get(), npad, constants_.get() + 1,
                                gq_.get() + candidates_ + first, ldg));
  });
  RBF_CUDA_CHECK(launch_revive_dependent<T>(stats(), history(0), basis, gq_.get(), context_.stream()));
  history_columns_ = nodes_ + 1;
  dependents_marked_ = false;
  selection_ready_ = false;
}

template <typename T>
model::Selection CudaBackend<T>::read_selection() const {
  model::Selection s;
  const double index = results_host_.host()[kSelectedIndex];
  if (index >= 0.0) {
    s.found = true;
    s.index = static_cast<std::size_t>(index);
    s.score = results_host_.host()[kSelectedScore];
  }
  return s;
}

template <typename T>
void CudaBackend<T>::reset_to_bias(std::vector<double>& a) {
  context_.activate();
  require_candidates("reset_to_bias");
  const cudaStream_t stream = context_.stream();
  const cublasHandle_t blas = context_.blas();
  const T* one = constants_.get();
  const T* zero = constants_.get() + 1;
  const int npad = as_int(npad_), k = as_int(k_);

  nodes_ = 0;
  val_columns_ = 0;  // validation columns belong to the nodes, which start over
  selection_ready_ = false;
  a_ready_ = false;
  T* q0 = q_.get();
  RBF_CUDA_CHECK(launch_fill_prefix(q0, npad, as_int(n_), static_cast<T>(1.0 / std::sqrt(static_cast<double>(n_))), stream));
  // E = Y - q0 (q0^T Y), with ||E||^2 and a = q0^T Y in the results.
  RBF_CUDA_CHECK(cudaMemcpyAsync(e_.get(), y_.get(), npad_ * k_ * sizeof(T), cudaMemcpyDefault, stream));
  RBF_CUBLAS_CHECK(blas::gemv(blas, CUBLAS_OP_T, npad, k, one, e_.get(), npad, q0, zero, a_.get()));
  RBF_CUDA_CHECK(launch_residual_update(e_.get(), npad_, npad, k, q0, a_.get(), scratch(),
                                        results_.get(), stream));
  // One pass over Phi_C: q0^T phi_c, phi_c^T E (cuBLAS) and ||phi_c||^2 (partial sums).
  const int ldg = as_int(candidates_);
  for_each_tile([&](const T* block, std::size_t first, std::size_t count) {
    const int cols = as_int(count);
    RBF_CUBLAS_CHECK(blas::gemv(blas, CUBLAS_OP_T, npad, cols, one, block, npad, q0, zero,
                                gq_.get() + first));
    RBF_CUBLAS_CHECK(blas::gemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, cols, k, npad, one, block, npad,
                                e_.get(), npad, zero, gq_.get() + candidates_ + first, ldg));
    RBF_CUDA_CHECK(launch_score_partials<T>(block, npad_, as_int(first), cols, nullptr,
                                            partition_, nullptr, partial_.get(), ldg,
                                            FusedResidual<T>{nullptr, 0, 0, nullptr, nullptr},
                                            stream));
  });
  RBF_CUDA_CHECK(launch_finish_reset<T>(stats(), partial_.get(), partition_.splits, gq_.get(),
                                        history(0), stream));
  dependents_marked_ = false;
  std::fill(used_host_.begin(), used_host_.end(), 0);
  history_columns_ = 1;
  if (last_request_.mode != kSelectNone) {
    prepare_request(last_request_);
    queue_selection(last_request_);
  }
  copy_results_back(kResultA + k_);
  a.assign(results_host_.host() + kResultA, results_host_.host() + kResultA + k_);
  if (last_request_.mode != kSelectNone) {
    ready_selection_ = read_selection();
    selection_ready_ = true;
  }
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
model::Selection CudaBackend<T>::select_ols(double lambda, double tol) {
  context_.activate();
  require_candidates("select_ols");
  SelectRequest request{kSelectOls, lambda, tol, 1};
  if (selection_ready_ && last_request_.mode == kSelectOls && last_request_.lambda == lambda &&
      last_request_.tol == tol)
    return ready_selection_;
  prepare_request(request);
  last_request_ = request;
  queue_selection(request);
  copy_results_back(kResultA);
  ready_selection_ = read_selection();
  selection_ready_ = true;
  return ready_selection_;
}

template <typename T>
model::Selection CudaBackend<T>::select_max_residual() {
  context_.activate();
  require_candidates("select_max_residual");
  if (selection_ready_ && last_request_.mode == kSelectMaxResidual) return ready_selection_;
  last_request_ = SelectRequest{kSelectMaxResidual, 0.0, 0.0, 0};
  queue_selection(last_request_);
  copy_results_back(kResultA);
  ready_selection_ = read_selection();
  selection_ready_ = true;
  return ready_selection_;
}

template <typename T>
double CudaBackend<T>::add_node(std::size_t c, double tol, std::vector<double>& h) {
  context_.activate();
  require_candidates("add_node");
  if (c >= candidates_ || used_host_[c] != 0)
    throw RuntimeError("internal error: candidate is not available");
  ensure_basis_capacity(nodes_ + 2);

  // The history row is complete for every candidate not marked dependent; with marks, only
  // the candidate the last OLS selection returned is known to be unmarked.
  const bool history_ok =
      history_columns_ == nodes_ + 1 &&
      (!dependents_marked_ || (selection_ready_ && last_request_.mode == kSelectOls &&
                               ready_selection_.found && ready_selection_.index == c));
  selection_ready_ = false;
  a_ready_ = false;
  used_host_[c] = 1;
  const T* phi = candidate_column(c);
  return orthogonalize(phi, history_ok ? history_.get() + c * basis_capacity_ : nullptr,
                       used_.get() + c, tol, h);
}

template <typename T>
double CudaBackend<T>::add_node_at(const T* center, T width, double tol, std::vector<double>& h) {
  context_.activate();
  require_candidates("add_node_at");
  // The same kernel and operand layout as a candidate column, so a node at candidate c's
  // center and width gives c's column bit for bit. Stored candidates have no column scratch.
  upload_node(center, width);
  ensure_basis_capacity(nodes_ + 2);
  selection_ready_ = false;
  a_ready_ = false;
  if (column_.empty()) column_ = Buffer<T>(context_, npad_, Placement::device, "a node column");
  RBF_CUDA_CHECK(launch_eval_columns(xt_.get(), npad_, as_int(n_), as_int(npad_), as_int(d_),
                                     node_.get(), node_.get() + d_, 0, 1, column_.get(), npad_,
                                     context_.stream()));
  // No history row: no scoring pass has seen this column. No candidate is marked, and the
  // next update() appends z = Phi_C^T q for every unmarked candidate as after add_node, so
  // the history and the dependent marks stay valid.
  return orthogonalize(column_.get(), nullptr, nullptr, tol, h);
}

template <typename T>
double CudaBackend<T>::orthogonalize(const T* phi, const T* h1, unsigned char* mark, double tol,
                                     std::vector<double>& h) {
  const cudaStream_t stream = context_.stream();
  const cublasHandle_t blas = context_.blas();
  const T* one = constants_.get();
  const T* zero = constants_.get() + 1;
  const int npad = as_int(npad_);
  const int cols = as_int(nodes_ + 1);
  T* u = q_.get() + (nodes_ + 1) * npad_;
  T* h2 = h_.get() + basis_capacity_;
  // CGS2: h1 = Q^T phi; u = phi - Q h1; h2 = Q^T u; u -= Q h2. The scoring passes already
  // computed h1 for an unused candidate (its history row), so Q is read three times, not
  // four; the first and last passes are fused kernels (the last one also takes the norms,
  // h = h1 + h2 and, for the next update, a = q^T E), the middle one is cuBLAS.
  if (h1 == nullptr) {
    RBF_CUBLAS_CHECK(blas::gemv(blas, CUBLAS_OP_T, npad, cols, one, q_.get(), npad, phi, zero, h_.get()));
    h1 = h_.get();
  }
  RBF_CUDA_CHECK(launch_cgs_subtract(q_.get(), npad_, cols, h1, phi, u, npad, mark, stream));
  RBF_CUBLAS_CHECK(blas::gemv(blas, CUBLAS_OP_T, npad, cols, one, q_.get(), npad, u, zero, h2));
  const bool fuse_a = k_ <= static_cast<std::size_t>(kMaxFusedOutputs);
  RBF_CUDA_CHECK(launch_cgs_finish(q_.get(), npad_, cols, h1, h2, u, phi, npad,
                                   fuse_a ? e_.get() : nullptr, npad_, as_int(k_), tol, scratch(),
                                   results_.get(), as_int(h_offset_), stream));
  RBF_CUDA_CHECK(launch_normalize(u, npad, results_.get(), stream));
  copy_results_back(h_offset_ + static_cast<std::size_t>(cols));

  const double* results = results_host_.host();
  h.assign(static_cast<std::size_t>(cols), 0.0);
  if (results[kDependent] != 0.0) return 0.0;  // Q unchanged
  std::copy(results + h_offset_, results + h_offset_ + cols, h.begin());
  ++nodes_;
  a_ready_ = fuse_a;
  return results[kNormU];
}

template <typename T>
void CudaBackend<T>::upload_node(const T* center, T width) {
  if (!(width > T(0))) throw RuntimeError("internal error: node widths must be positive");
  if (node_.empty()) node_ = Buffer<T>(context_, d_ + 1, Placement::device, "a node center");
  // Pageable staging: cudaMemcpyAsync has taken the values when it returns, so neither this
  // vector nor the caller's center has to outlive the call; the copy is stream-ordered, so
  // kernels queued earlier still read the previous node.
  std::vector<T> values(center, center + d_);
  values.push_back(model::gaussian_gamma(width));  // as set_candidates computes gamma_
  RBF_CUDA_CHECK(cudaMemcpyAsync(node_.get(), values.data(), values.size() * sizeof(T),
                                 cudaMemcpyHostToDevice, context_.stream()));
}

template <typename T>
double CudaBackend<T>::update(bool statistics, std::vector<double>& a) {
  context_.activate();
  require_candidates("update");
  const cudaStream_t stream = context_.stream();
  const int npad = as_int(npad_), k = as_int(k_);
  const T* q = q_.get() + nodes_ * npad_;
  double* a_device = results_.get() + kResultA;
  // With a from add_node, the first scoring launch also does E -= q a^T and sums E^2.
  const bool fused = statistics && a_ready_;
  if (!fused) {
    RBF_CUBLAS_CHECK(blas::gemv(context_.blas(), CUBLAS_OP_T, npad, k, constants_.get(), e_.get(),
                                npad, q, constants_.get() + 1, a_.get()));
    RBF_CUDA_CHECK(launch_residual_update(e_.get(), npad_, npad, k, q, a_.get(), scratch(),
                                          results_.get(), stream));
  }
  a_ready_ = false;
  selection_ready_ = false;
  if (statistics) {
    const int ps = as_int(candidates_);
    for_each_tile([&](const T* block, std::size_t first, std::size_t count) {
      const FusedResidual<T> residual =
          fused && first == 0 ? FusedResidual<T>{e_.get(), npad_, k, a_device, sse_partial_.get()}
                              : FusedResidual<T>{nullptr, 0, 0, nullptr, nullptr};
      RBF_CUDA_CHECK(launch_score_partials<T>(block, npad_, as_int(first), as_int(count), q,
                                              partition_, used_.get(), partial_.get(), ps,
                                              residual, stream));
    });
    // The statistics update and the next selection (speculatively, with the last request's
    // parameters) in one kernel, so the next select_*() needs no device round trip.
    prepare_request(last_request_);
    RBF_CUDA_CHECK(launch_finish_update<T>(stats(), partial_.get(), partition_.splits, a_device,
                                           history(nodes_), last_request_, e_.get(), npad_,
                                           rows_.get(), fused ? sse_partial_.get() : nullptr,
                                           scratch(), results_.get(), stream));
    if (history_columns_ == nodes_) history_columns_ = nodes_ + 1;
  }
  copy_results_back(kResultA + k_);
  const double* results = results_host_.host();
  a.assign(results + kResultA, results + kResultA + k_);
  if (statistics && last_request_.mode != kSelectNone) {
    ready_selection_ = read_selection();
    selection_ready_ = true;
  }
  return results[kResidualNorm2];
}

template <typename T>
T* CudaBackend<T>::next_validation_column() {
  if (val_columns_ + 1 > val_capacity_) {
    const std::size_t capacity = std::max(kInitialValidationColumns, 2 * val_capacity_);
    Buffer<T> grown(context_, nvpad_ * capacity, Placement::device, "the validation columns");
    if (val_columns_ > 0)
      RBF_CUDA_CHECK(cudaMemcpyAsync(grown.get(), phi_val_.get(), val_columns_ * nvpad_ * sizeof(T),
                                     cudaMemcpyDeviceToDevice, context_.stream()));
    phi_val_ = std::move(grown);
    val_capacity_ = capacity;
  }
  return phi_val_.get() + val_columns_ * nvpad_;
}

template <typename T>
void CudaBackend<T>::add_validation_column(std::size_t c) {
  context_.activate();
  require_candidates("add_validation_column");
  if (c >= candidates_)
    throw RuntimeError("gpu backend: add_validation_column(" + std::to_string(c) + ") out of range");
  if (nv_ == 0) {
    ++val_columns_;
    return;
  }
  RBF_CUDA_CHECK(launch_eval_columns(xvt_.get(), nvpad_, as_int(nv_), as_int(nvpad_),
                                     as_int(d_), centers_.get(), gamma_.get(), as_int(c), 1,
                                     next_validation_column(), nvpad_, context_.stream()));
  ++val_columns_;
}

template <typename T>
void CudaBackend<T>::add_validation_column_at(const T* center, T width) {
  context_.activate();
  require_training_data("add_validation_column_at");
  if (!(width > T(0))) throw RuntimeError("internal error: node widths must be positive");
  if (nv_ == 0) {
    ++val_columns_;
    return;
  }
  T* out = next_validation_column();
  upload_node(center, width);
  RBF_CUDA_CHECK(launch_eval_columns(xvt_.get(), nvpad_, as_int(nv_), as_int(nvpad_),
                                     as_int(d_), node_.get(), node_.get() + d_, 0, 1, out, nvpad_,
                                     context_.stream()));
  ++val_columns_;
}

template <typename T>
void CudaBackend<T>::predict_validation(const double* w, std::size_t columns,
                                        std::vector<double>& out) {
  context_.activate();
  require_training_data("predict_validation");
  if (columns > val_columns_)
    throw RuntimeError("gpu backend: predict_validation with " + std::to_string(columns) +
                       " columns but only " + std::to_string(val_columns_) + " were added");
  out.assign(nv_ * k_, 0.0);
  if (nv_ == 0) return;
  if (columns > 0) {
    if (weights_.size() < columns * k_)
      weights_ = Buffer<T>(context_, std::max(columns * k_, 2 * weights_.size()), Placement::device,
                           "the validation weights");
    if (val_out_.size() < nvpad_ * k_) {
      val_out_ = Buffer<T>(context_, nvpad_ * k_, Placement::device, "the validation predictions");
      val_out_host_ = Buffer<T>(context_, nvpad_ * k_, Placement::pinned_host, "the validation predictions");
    }
    std::vector<T> wc(columns * k_);  // column-major columns x k, bias row excluded
    for (std::size_t r = 0; r < columns; ++r)
      for (std::size_t j = 0; j < k_; ++j) wc[r + j * columns] = static_cast<T>(w[(r + 1) * k_ + j]);
    RBF_CUDA_CHECK(cudaMemcpyAsync(weights_.get(), wc.data(), wc.size() * sizeof(T),
                                   cudaMemcpyHostToDevice, context_.stream()));
    RBF_CUBLAS_CHECK(blas::gemm(context_.blas(), CUBLAS_OP_N, CUBLAS_OP_N, as_int(nvpad_),
                                as_int(k_), as_int(columns), constants_.get(), phi_val_.get(),
                                as_int(nvpad_), weights_.get(), as_int(columns),
                                constants_.get() + 1, val_out_.get(), as_int(nvpad_)));
    RBF_CUDA_CHECK(cudaMemcpyAsync(val_out_host_.host(), val_out_.get(), nvpad_ * k_ * sizeof(T),
                                   cudaMemcpyDeviceToHost, context_.stream()));
    context_.synchronize();
  }
  for (std::size_t i = 0; i < nv_; ++i)
    for (std::size_t j = 0; j < k_; ++j)
      out[i * k_ + j] = w[j] + (columns > 0 ? static_cast<double>(val_out_host_.host()[i + j * nvpad_]) : 0.0);
}

template <typename T>
std::size_t CudaBackend<T>::memory_bytes() const {
  std::size_t total = 0;
  for (const Buffer<T>* b : {&xt_, &y_, &e_, &xvt_, &phi_val_, &weights_, &val_out_, &centers_,
                             &gamma_, &phi_, &tile_, &column_, &partial_, &gq_, &q_, &h_, &a_,
                             &history_, &constants_, &node_})
    total += b->bytes();
  for (const Buffer<double>* b : {&norm2_, &proj2_, &g_, &reduce_values_, &results_, &sse_partial_})
    total += b->bytes();
  return total + rows_.bytes() + used_.bytes() + reduce_indices_.bytes() + tickets_.bytes();
}

template <typename T>
void CudaBackend<T>::export_state(model::BackendState<T>& st) const {
  context_.activate();
  require_candidates("export_state");
  const cudaStream_t stream = context_.stream();
  const std::size_t basis = nodes_ + 1;
  auto copy_columns = [&](const T* src, std::size_t ld, std::size_t rows, std::size_t cols,
                          std::vector<T>& out) {
    out.assign(rows * cols, T(0));
    if (rows * cols == 0) return;
    RBF_CUDA_CHECK(cudaMemcpy2DAsync(out.data(), rows * sizeof(T), src, ld * sizeof(T),
                                     rows * sizeof(T), cols, cudaMemcpyDeviceToHost, stream));
  };
  st.basis = basis;
  copy_columns(q_.get(), npad_, n_, basis, st.q);
  copy_columns(e_.get(), npad_, n_, k_, st.e);
  st.val_columns = val_columns_;
  copy_columns(phi_val_.get(), nvpad_, nv_, nv_ > 0 ? val_columns_ : 0, st.phi_val);
  std::vector<double> n2(candidates_), s2(candidates_), g(candidates_ * k_);
  std::vector<unsigned char> marks(candidates_);
  RBF_CUDA_CHECK(cudaMemcpyAsync(marks.data(), used_.get(), candidates_, cudaMemcpyDeviceToHost, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(n2.data(), norm2_.get(), n2.size() * sizeof(double), cudaMemcpyDeviceToHost, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(s2.data(), proj2_.get(), s2.size() * sizeof(double), cudaMemcpyDeviceToHost, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(g.data(), g_.get(), g.size() * sizeof(double), cudaMemcpyDeviceToHost, stream));
  context_.synchronize();
  st.n_norm.assign(n2.begin(), n2.end());
  st.s_proj.assign(s2.begin(), s2.end());
  st.g.resize(candidates_ * k_);  // column-major count x k
  for (std::size_t c = 0; c < candidates_; ++c)
    for (std::size_t j = 0; j < k_; ++j) st.g[c + j * candidates_] = static_cast<T>(g[c * k_ + j]);
  // A candidate marked dependent has stale statistics; s_c = n_c says "dependent" to any backend.
  st.used.assign(candidates_, 0);
  for (std::size_t c = 0; c < candidates_; ++c) {
    st.used[c] = marks[c] == kMarkUsed ? 1 : 0;
    if (marks[c] == kMarkDependent) st.s_proj[c] = st.n_norm[c];
  }
}

template <typename T>
void CudaBackend<T>::import_state(const model::BackendState<T>& st) {
  context_.activate();
  require_candidates("import_state");
  if (st.basis == 0 || st.q.size() != n_ * st.basis || st.e.size() != n_ * k_ ||
      st.n_norm.size() != candidates_ || st.s_proj.size() != candidates_ ||
      st.g.size() != candidates_ * k_ || st.used.size() != candidates_ ||
      st.phi_val.size() != nv_ * st.val_columns)
    throw RuntimeError("internal error: imported trainer state does not match the data");
  const cudaStream_t stream = context_.stream();
  ensure_basis_capacity(st.basis + 1);
  auto copy_columns = [&](const std::vector<T>& src, std::size_t rows, std::size_t cols, T* dst,
                          std::size_t ld) {
    if (rows * cols == 0) return;
    RBF_CUDA_CHECK(cudaMemcpy2DAsync(dst, ld * sizeof(T), src.data(), rows * sizeof(T),
                                     rows * sizeof(T), cols, cudaMemcpyHostToDevice, stream));
  };
  copy_columns(st.q, n_, st.basis, q_.get(), npad_);
  copy_columns(st.e, n_, k_, e_.get(), npad_);
  if (nv_ > 0 && st.val_columns > val_capacity_) {
    const std::size_t capacity = std::max(kInitialValidationColumns, st.val_columns);
    phi_val_ = Buffer<T>(context_, nvpad_ * capacity, Placement::device, "the validation columns");
    val_capacity_ = capacity;
  }
  if (nv_ > 0) copy_columns(st.phi_val, nv_, st.val_columns, phi_val_.get(), nvpad_);
  val_columns_ = st.val_columns;
  std::vector<double> n2(st.n_norm.begin(), st.n_norm.end()), s2(st.s_proj.begin(), st.s_proj.end());
  std::vector<double> g(candidates_ * k_);
  for (std::size_t c = 0; c < candidates_; ++c)
    for (std::size_t j = 0; j < k_; ++j) g[c * k_ + j] = static_cast<double>(st.g[c + j * candidates_]);
  RBF_CUDA_CHECK(cudaMemcpyAsync(norm2_.get(), n2.data(), n2.size() * sizeof(double), cudaMemcpyHostToDevice, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(proj2_.get(), s2.data(), s2.size() * sizeof(double), cudaMemcpyHostToDevice, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(g_.get(), g.data(), g.size() * sizeof(double), cudaMemcpyHostToDevice, stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(used_.get(), st.used.data(), candidates_, cudaMemcpyHostToDevice, stream));
  used_host_ = st.used;
  dependents_marked_ = false;
  nodes_ = st.basis - 1;
  selection_ready_ = false;
  a_ready_ = false;
  // Rebuild the projection history z_cj = q_j^T phi_c in one pass (history^T = Q^T Phi_C), so
  // CGS2 keeps reading Q three times after a migration.
  const int npad = as_int(npad_), basis = as_int(st.basis);
  for_each_tile([&](const T* block, std::size_t first, std::size_t count) {
    RBF_CUBLAS_CHECK(blas::gemm(context_.blas(), CUBLAS_OP_T, CUBLAS_OP_N, basis, as_int(count), npad,
                                constants_.get(), q_.get(), npad, block, npad, constants_.get() + 1,
                                history_.get() + first * basis_capacity_, as_int(basis_capacity_)));
  });
  history_columns_ = st.basis;
  context_.synchronize();
}

template class CudaBackend<float>;
template class CudaBackend<double>;

}  // namespace rbf::gpu
