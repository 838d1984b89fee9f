// The CUDA backend as one shard of a row-sharded model: its sums over rows through the group.
//
// Each sum crosses the group through host memory (contracts/row_shards.hpp): a handful of
// small vectors per iteration (a, h, the norms, z per candidate), microseconds next to a
// pass over millions of rows. Values are summed in double and rounded back to T once.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "gpu/candidate_kernels.hpp"
#include "gpu/cuda_backend.hpp"
#include "gpu/cuda_backend_internal.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/kernel_constants.hpp"
#include "gpu/matrix_free_kernels.hpp"
#include "gpu/vector_kernels.hpp"

namespace rbf::gpu {

template <typename T>
void CudaBackend<T>::set_row_shards(std::shared_ptr<model::RowShards> shards) {
  if (n_ != 0) throw RuntimeError("internal error: set_row_shards after set_training_data");
  shards_ = std::move(shards);
}

template <typename T>
template <typename V>
void CudaBackend<T>::sum_over_shards(V* values, std::size_t count) {
  if (!sharded() || count == 0) return;
  const cudaStream_t stream = context_.stream();
  std::vector<V> host(count);
  RBF_CUDA_CHECK(cudaMemcpyAsync(host.data(), values, count * sizeof(V), cudaMemcpyDeviceToHost, stream));
  context_.synchronize();
  std::vector<double> sums(host.begin(), host.end());
  shards_->sum(sums.data(), count);
  std::transform(sums.begin(), sums.end(), host.begin(), [](double v) { return static_cast<V>(v); });
  RBF_CUDA_CHECK(cudaMemcpyAsync(values, host.data(), count * sizeof(V), cudaMemcpyHostToDevice, stream));
  context_.synchronize();  // `host` goes out of scope
}

namespace {

// Copies the call results in slots [first, last] from the device, lets `edit` change them
// (values[0] is slot `first`) and copies them back, waiting for both copies.
template <typename Edit>
void edit_result_slots(const Context& context, double* results, int first, int last, Edit&& edit) {
  std::vector<double> values(static_cast<std::size_t>(last - first + 1));
  const std::size_t bytes = values.size() * sizeof(double);
  RBF_CUDA_CHECK(cudaMemcpyAsync(values.data(), results + first, bytes, cudaMemcpyDeviceToHost, context.stream()));
  context.synchronize();
  edit(values.data());
  RBF_CUDA_CHECK(cudaMemcpyAsync(results + first, values.data(), bytes, cudaMemcpyHostToDevice, context.stream()));
  context.synchronize();
}

}  // namespace

template <typename T>
bool CudaBackend<T>::shard_reorthogonalization(double ratio2) {
  bool again = true;
  // Slots kNormPhi .. kNormU2, as the first pass left them for this shard's rows.
  edit_result_slots(context_, results_.get(), kNormPhi, kNormU2, [&](double* v) {
    double norms[2] = {v[kNormPhi2 - kNormPhi], v[kNormU2 - kNormPhi]};
    shards_->sum(norms, 2);
    v[kNormPhi - kNormPhi] = std::sqrt(norms[0]);
    v[kNormPhi2 - kNormPhi] = norms[0];
    v[kNormU2 - kNormPhi] = norms[1];
    // As the kernel (and model::needs_reorthogonalization): a NaN norm projects again.
    again = !(norms[1] >= ratio2 * norms[0]);
    v[kReorthogonalize - kNormPhi] = again ? 1.0 : 0.0;
  });
  return again;
}

template <typename T>
void CudaBackend<T>::shard_dependence(double tol) {
  edit_result_slots(context_, results_.get(), kNormU, kNormU2, [&](double* v) {
    double nu2 = v[kNormU2 - kNormU];
    shards_->sum(&nu2, 1);
    v[kNormU2 - kNormU] = nu2;
    v[kNormU - kNormU] = std::sqrt(nu2);
    // As the kernel: NaN counts as dependent. kNormPhi2 is the group's, from the first pass.
    v[kDependent - kNormU] = (nu2 > tol * v[kNormPhi2 - kNormU]) ? 0.0 : 1.0;
  });
}

template <typename T>
T* CudaBackend<T>::shard_sums() {
  if (shard_sums_.empty()) shard_sums_ = Buffer<T>(context_, candidates_, Placement::device, "the shard sums");
  return shard_sums_.get();
}

template <typename T>
void CudaBackend<T>::finish_reset(const T* squares, int splits) {
  const cudaStream_t stream = context_.stream();
  if (sharded()) {
    T* sums = shard_sums();
    RBF_CUDA_CHECK(launch_sum_splits(squares, splits, as_int(candidates_), sums, stream));
    sum_over_shards(gq_.get(), candidates_ * (k_ + 1));
    sum_over_shards(sums, candidates_);
    squares = sums;
    splits = 1;
  }
  RBF_CUDA_CHECK(launch_finish_reset<T>(stats(), squares, splits, gq_.get(), history(0), stream));
}

template <typename T>
model::Selection CudaBackend<T>::shard_select_max_residual() {
  if (shard_scores_.empty()) shard_scores_ = Buffer<double>(context_, candidates_, Placement::device, "the shard scores");
  RBF_CUDA_CHECK(launch_residual_row_norms(e_.get(), npad_, as_int(k_), rows_.get(), as_int(candidates_),
                                           shard_scores_.get(), context_.stream()));
  std::vector<double> scores(candidates_);
  RBF_CUDA_CHECK(cudaMemcpyAsync(scores.data(), shard_scores_.get(), candidates_ * sizeof(double),
                                 cudaMemcpyDeviceToHost, context_.stream()));
  context_.synchronize();
  shards_->sum(scores.data(), candidates_);  // one shard holds each row, the others add 0
  model::Selection best;
  for (std::size_t c = 0; c < candidates_; ++c) {
    if (used_host_[c] != 0) continue;
    if (!best.found || scores[c] > best.score) {  // ties: the lowest index, as the kernel
      best.found = true;
      best.index = c;
      best.score = scores[c];
    }
  }
  return best;
}

#define RBF_INSTANTIATE_ROW_SHARDS(T)                                                  \
  template void CudaBackend<T>::set_row_shards(std::shared_ptr<model::RowShards>);      \
  template void CudaBackend<T>::sum_over_shards<T>(T*, std::size_t);                    \
  template bool CudaBackend<T>::shard_reorthogonalization(double);                      \
  template void CudaBackend<T>::shard_dependence(double);                               \
  template void CudaBackend<T>::finish_reset(const T*, int);                            \
  template T* CudaBackend<T>::shard_sums();                                             \
  template model::Selection CudaBackend<T>::shard_select_max_residual();
RBF_INSTANTIATE_ROW_SHARDS(float)
RBF_INSTANTIATE_ROW_SHARDS(double)
#undef RBF_INSTANTIATE_ROW_SHARDS

}  // namespace rbf::gpu
