// CUDA CGS2: adding a candidate or an off-pool node to the orthonormal basis Q on the device.
//
// h1 = Q^T phi comes from the projection history for an unused candidate (cuBLAS gemv for an
// off-pool node). Then, with no copy back between them: one pass over Q for u = phi - Q h1,
// ||u||, ||phi||, the DGKS decision (contracts/reorthogonalization.hpp) and, from the
// same tiles while they are in cache, the blocks' shares of h2 = Q^T u; a small kernel that
// sums the shares (only when the decision asks for the second projection); and u -= Q h2
// (again only when asked) with the norms, h and a = q^T E. So Q is read once per candidate
// node when the first projection is enough (twice for an off-pool node) and twice when
// ||u|| < ||phi|| / sqrt(2) calls for the second one, which is most nodes of RBF growth.
//
// Lazy CGS2 (one device, at most kMaxFusedOutputs outputs) reads Q once per node even then.
// The second projection's u -= Q h2 is left pending: Q's new column keeps u, and
// ||u - Q h2||^2 = ||u||^2 - ||h2||^2 gives the norm, the dependence test and a = u^T E / ||q||
// (u^T E summed in the first pass; Q^T E = 0). The scoring pass reads u and corrects z with
// the history (z = (Phi^T u - Z h2) / ||q||, finish_update), and the next node's first pass
// finishes the column from the same read of Q it makes anyway, with E -= q a^T, before
// projecting. Anything else that reads Q or E as they are calls settle_basis() first.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "gpu/candidate_kernels.hpp"
#include "gpu/cgs_kernels.hpp"
#include "gpu/cublas_ops.hpp"
#include "gpu/cuda_backend.hpp"
#include "gpu/cuda_backend_internal.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/gaussian_column_kernels.hpp"
#include "gpu/kernel_constants.hpp"
#include "gpu/vector_kernels.hpp"
#include "contracts/gaussian_columns.hpp"
#include "contracts/reorthogonalization.hpp"

namespace rbf::gpu {

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
  column_ahead_ = kNoColumn;  // overwritten here
  RBF_CUDA_CHECK(launch_eval_columns(xt_.get(), npad_, as_int(n_), as_int(npad_), as_int(d_),
                                     node_.get(), node_.get() + d_, 0, 1, column_.get(), npad_,
                                     context_.stream(), row_scale()));
  // No history row: no scoring pass has seen this column. No candidate is marked, and the
  // next update() appends z = Phi_C^T q for every unmarked candidate as after add_node, so
  // the history and the dependent marks stay valid.
  return orthogonalize(column_.get(), nullptr, nullptr, tol, h);
}

template <typename T>
double CudaBackend<T>::orthogonalize(const T* phi, const T* h1, unsigned char* mark, double tol,
                                     std::vector<double>& h) {
  if (compact_) return compact_orthogonalize(phi, h1, mark, tol, h);
  const cudaStream_t stream = context_.stream();
  const cublasHandle_t blas = context_.blas();
  const T* one = constants_.get();
  const T* zero = constants_.get() + 1;
  const int npad = as_int(npad_);
  const int cols = as_int(nodes_ + 1);
  T* u = basis_column(nodes_ + 1);
  T* h2 = h_.get() + basis_capacity_;
  if (h1 == nullptr) {
    settle_basis();  // the product needs Q as it is
    RBF_CUBLAS_CHECK(blas::gemv(blas, CUBLAS_OP_T, npad, cols, one, q_.get(), npad, phi, zero, h_.get()));
    sum_over_shards(h_.get(), static_cast<std::size_t>(cols));
    h1 = h_.get();
  }
  constexpr double ratio2 = model::kReorthogonalizeRatio * model::kReorthogonalizeRatio;
  if (lazy_cgs()) {
    queue_lazy_cgs(phi, h1, mark, tol);
  } else {
    RBF_CUDA_CHECK(launch_cgs_subtract(q_.get(), npad_, cols, h1, phi, u, npad, mark, ratio2, scratch(),
                                       results_.get(), cgs_partial_.get(), stream));
    // Unsharded, the decisions stay on the device: reading them would cost round trips. A
    // shard's norms cover its rows only, so the group's are summed and decided on the host.
    const bool again = sharded() ? shard_reorthogonalization(ratio2) : true;
    // Skipped on the device by the decision.
    RBF_CUDA_CHECK(launch_cgs_reduce(cgs_partial_.get(), npad, cols, results_.get(), h2, stream));
    if (sharded() && again) sum_over_shards(h2, static_cast<std::size_t>(cols));
    // Row shards or many outputs: a = q^T E is left to update() (a shard's share would not do,
    // and the fused sum takes at most kMaxFusedOutputs outputs).
    RBF_CUDA_CHECK(launch_cgs_finish(q_.get(), npad_, cols, h1, h2, u, npad, static_cast<const T*>(nullptr), npad_, as_int(k_), tol,
                                     scratch(), results_.get(), as_int(h_offset_), stream));
    if (sharded()) shard_dependence(tol);
    RBF_CUDA_CHECK(launch_normalize(u, npad, results_.get(), stream));
  }
  copy_results_back(h_offset_ + static_cast<std::size_t>(cols));
  return take_cgs_results(h);
}

template <typename T>
void CudaBackend<T>::queue_lazy_cgs(const T* phi, const T* h1, unsigned char* mark, double tol) {
  constexpr double ratio2 = model::kReorthogonalizeRatio * model::kReorthogonalizeRatio;
  const int cols = as_int(nodes_ + 1);
  T* h2 = h_.get() + basis_capacity_;
  LazyCgs<T> lazy;
  lazy.e = e_.get();
  lazy.lde = npad_;
  lazy.k = as_int(k_);
  if (pending_) {
    lazy.pending = q_.get() + nodes_ * npad_;
    lazy.g = h2;  // read by the pass before the close below overwrites it
  }
  RBF_CUDA_CHECK(launch_cgs_subtract(q_.get(), npad_, cols, h1, phi, q_.get() + (nodes_ + 1) * npad_, as_int(npad_),
                                     mark, ratio2, scratch(), results_.get(), cgs_partial_.get(), context_.stream(),
                                     lazy));
  pending_ = false;  // finished by that pass, whether or not the new node is kept
  RBF_CUDA_CHECK(launch_cgs_lazy_close(cgs_partial_.get(), as_int(npad_), cols, h1, h2, as_int(k_), tol, scratch(),
                                       results_.get(), as_int(h_offset_), context_.stream()));
}

template <typename T>
double CudaBackend<T>::take_cgs_results(std::vector<double>& h) {
  const std::size_t cols = nodes_ + 1;
  const double* results = results_host_.host();
  if (results[kReorthogonalize] != 0.0) ++reorthogonalizations_;
  h.assign(cols, 0.0);
  if (results[kDependent] != 0.0) return 0.0;  // Q unchanged
  std::copy(results + h_offset_, results + h_offset_ + cols, h.begin());
  ++nodes_;
  // Lazy CGS2 leaves a = q^T E in the results.
  a_ready_ = lazy_cgs();
  pending_ = lazy_cgs();
  return results[kNormU];
}

template <typename T>
bool CudaBackend<T>::lazy_cgs() const {
  return !compact_ && !sharded() && k_ <= static_cast<std::size_t>(kMaxFusedOutputs);
}

template <typename T>
void CudaBackend<T>::settle_basis() const {
  if (!pending_) return;
  RBF_CUDA_CHECK(launch_cgs_settle(q_.get(), npad_, as_int(nodes_), h_.get() + basis_capacity_,
                                   q_.get() + nodes_ * npad_, as_int(npad_), e_.get(), npad_, as_int(k_),
                                   scratch(), results_.get(), context_.stream()));
  pending_ = false;
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
std::size_t CudaBackend<T>::basis_columns_for(std::size_t nodes) const {
  // Nodes are candidates (refinement moves them, it does not add any); the basis holds the
  // bias column and CGS's working vector too.
  return (candidates_ > 0 ? std::min(nodes, candidates_) : nodes) + 2;
}

template <typename T>
double CudaBackend<T>::growth_bytes(std::size_t columns, bool compact) const {
  // Per basis column: Q's rows (half codes when compact), the projection history's
  // candidates, a validation column.
  const double q_row = compact ? 2.0 : static_cast<double>(sizeof(T));
  return static_cast<double>(columns) *
         (static_cast<double>(npad_) * q_row + static_cast<double>(candidates_ + nvpad_) * sizeof(T));
}

template <typename T>
void CudaBackend<T>::reserve_nodes(std::size_t nodes) {
  context_.activate();
  // Each first launch of a kernel would load it inside an iteration; each doubling of the
  // basis (64, 128, 256 ... columns) reallocates and copies Q and the history there: about a
  // millisecond each at 200,000 rows. Both happen here instead, during set-up.
  RBF_CUDA_CHECK(preload_cgs_kernels<T>());
  RBF_CUDA_CHECK(preload_column_kernel<T>());
  const std::size_t columns = basis_columns_for(nodes);
  planned_columns_ = columns;
  if (!compact_) {
    const std::string reason = compact_reason(columns);
    if (!reason.empty()) enter_compact_basis(reason);
  }
  if (columns <= basis_capacity_) return;
  // The whole growth's basis now, where it fits with basis_room's reserve to spare:
  // then the growth cannot run out of it half-way. Where it does not fit, memory_shortfall
  // says so before the growth starts.
  if (growth_bytes(columns) > basis_room(static_cast<double>(context_.free_memory()))) return;
  ensure_basis_capacity(columns);
  if (nv_ > 0) ensure_validation_capacity(columns);
}

template <typename T>
std::string CudaBackend<T>::memory_shortfall(std::size_t nodes) const {
  const std::size_t columns = basis_columns_for(nodes);
  if (columns <= basis_capacity_ && (nv_ == 0 || columns <= val_capacity_)) return "";
  // With the reserve reserve_nodes keeps for everything else (basis_room), and Q as compact
  // as this run allows (reserve_nodes would have made it compact had that fitted).
  const bool compact = compact_ || compact_allowed();
  const double need = growth_bytes(columns, compact), free = static_cast<double>(context_.free_memory());
  const double room = basis_room(free);
  if (need <= room) return "";
  const double per_column = growth_bytes(1, compact);
  const double fit = std::floor(room / per_column) - 2.0;
  return "needs " + model::memory_text(need) + " on GPU " + std::to_string(context_.device()) + " (" +
         context_.properties().name + ") for the basis Q" + (compact ? " in half precision" : "") +
         ", which grows with rows x nodes, and what grows beside it, "
         "but only " + model::memory_text(room) + " of the " + model::memory_text(free) +
         " free may hold it: at most " +
         std::to_string(static_cast<long long>(std::max(0.0, fit))) + " nodes fit";
}

template <typename T>
void CudaBackend<T>::ensure_basis_capacity(std::size_t columns) {
  if (columns <= basis_capacity_) return;
  settle_basis();  // its coefficients live in h_, which is reallocated
  // Doubling, but never past the growth's planned size (reserve_nodes) once it is reached.
  std::size_t capacity = std::max(columns, 2 * basis_capacity_);
  if (planned_columns_ >= columns) capacity = std::min(capacity, planned_columns_);
  if (compact_) {
    grow_compact_basis(capacity);  // q_ keeps its two float columns
  } else {
    Buffer<T> q(context_, npad_ * capacity, Placement::device,
                "the orthonormal basis Q (" + std::to_string(capacity) + " columns)");
    if (!q_.empty())
      RBF_CUDA_CHECK(cudaMemcpyAsync(q.get(), q_.get(), (nodes_ + 1) * npad_ * sizeof(T),
                                     cudaMemcpyDeviceToDevice, context_.stream()));
    q_ = std::move(q);
  }
  if (!history_.empty()) {
    Buffer<T> z(context_, candidates_ * capacity, Placement::device, "the projection history");
    RBF_CUDA_CHECK(cudaMemcpy2DAsync(z.get(), capacity * sizeof(T), history_.get(),
                                     basis_capacity_ * sizeof(T), basis_capacity_ * sizeof(T),
                                     candidates_, cudaMemcpyDeviceToDevice, context_.stream()));
    history_ = std::move(z);
  }
  h_ = Buffer<T>(context_, 2 * capacity, Placement::device, "CGS2 coefficients");
  if (!compact_)
    cgs_partial_ = Buffer<T>(context_, static_cast<std::size_t>(cgs_blocks(as_int(npad_))) * capacity,
                             Placement::device, "CGS2 partial sums");
  // The results keep their values (a after add_node) across the growth.
  Buffer<double> results(context_, h_offset_ + capacity, Placement::device, "call results");
  if (!results_.empty())
    RBF_CUDA_CHECK(cudaMemcpyAsync(results.get(), results_.get(), h_offset_ * sizeof(double),
                                   cudaMemcpyDeviceToDevice, context_.stream()));
  results_ = std::move(results);
  results_host_ = Buffer<double>(context_, h_offset_ + capacity, Placement::pinned_host, "call results");
  basis_capacity_ = capacity;
}

#define RBF_INSTANTIATE_ORTHOGONALIZE(T)                                                                           \
  template double CudaBackend<T>::add_node(std::size_t, double, std::vector<double>&);                             \
  template double CudaBackend<T>::add_node_at(const T*, T, double, std::vector<double>&);                          \
  template double CudaBackend<T>::orthogonalize(const T*, const T*, unsigned char*, double, std::vector<double>&); \
  template void CudaBackend<T>::upload_node(const T*, T);                                                          \
  template void CudaBackend<T>::ensure_basis_capacity(std::size_t);                                               \
  template void CudaBackend<T>::reserve_nodes(std::size_t);                                                       \
  template std::string CudaBackend<T>::memory_shortfall(std::size_t) const;                                       \
  template std::size_t CudaBackend<T>::basis_columns_for(std::size_t) const;                                      \
  template double CudaBackend<T>::growth_bytes(std::size_t, bool) const;                                              \
  template bool CudaBackend<T>::lazy_cgs() const;                                                                  \
  template void CudaBackend<T>::queue_lazy_cgs(const T*, const T*, unsigned char*, double);                        \
  template double CudaBackend<T>::take_cgs_results(std::vector<double>&);                                          \
  template void CudaBackend<T>::settle_basis() const;
RBF_INSTANTIATE_ORTHOGONALIZE(float)
RBF_INSTANTIATE_ORTHOGONALIZE(double)
#undef RBF_INSTANTIATE_ORTHOGONALIZE

}  // namespace rbf::gpu
