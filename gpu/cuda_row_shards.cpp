// The CUDA backend as one shard of a row-sharded model: its sums over rows through the group.
//
// Each sum crosses the group through host memory (model/contracts/row_shards.hpp): a handful of
// small vectors per iteration (a, h, the norms, z per candidate), microseconds next to a
// pass over millions of rows. Values are summed in double and rounded back to T once.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "gpu/cuda_backend.hpp"
#include "gpu/cuda_backend_internal.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/matrix_free_kernels.hpp"

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

template <typename T>
bool CudaBackend<T>::shard_reorthogonalization(double ratio2) {
  // Slots kNormPhi .. kNormU2 of the results, as the first pass left them for this shard.
  constexpr std::size_t first = kNormPhi, slots = kNormU2 - kNormPhi + 1;
  double* device = results_.get() + first;
  double values[slots];
  RBF_CUDA_CHECK(cudaMemcpyAsync(values, device, sizeof(values), cudaMemcpyDeviceToHost, context_.stream()));
  context_.synchronize();
  double norms[2] = {values[kNormPhi2 - first], values[kNormU2 - first]};
  shards_->sum(norms, 2);
  values[kNormPhi - first] = std::sqrt(norms[0]);
  values[kNormPhi2 - first] = norms[0];
  values[kNormU2 - first] = norms[1];
  // As the kernel (and model::needs_reorthogonalization): a NaN norm projects again.
  const bool again = !(norms[1] >= ratio2 * norms[0]);
  values[kReorthogonalize - first] = again ? 1.0 : 0.0;
  RBF_CUDA_CHECK(cudaMemcpyAsync(device, values, sizeof(values), cudaMemcpyHostToDevice, context_.stream()));
  context_.synchronize();
  return again;
}

template <typename T>
void CudaBackend<T>::shard_dependence(double tol) {
  constexpr std::size_t first = kNormU, slots = kNormU2 - kNormU + 1;
  double* device = results_.get() + first;
  double values[slots];
  RBF_CUDA_CHECK(cudaMemcpyAsync(values, device, sizeof(values), cudaMemcpyDeviceToHost, context_.stream()));
  context_.synchronize();
  double nu2 = values[kNormU2 - first];
  shards_->sum(&nu2, 1);
  values[kNormU2 - first] = nu2;
  values[kNormU - first] = std::sqrt(nu2);
  // As the kernel: NaN counts as dependent. kNormPhi2 is the group's, from the first pass.
  values[kDependent - first] = (nu2 > tol * values[kNormPhi2 - first]) ? 0.0 : 1.0;
  RBF_CUDA_CHECK(cudaMemcpyAsync(device, values, sizeof(values), cudaMemcpyHostToDevice, context_.stream()));
  context_.synchronize();
}

template <typename T>
void CudaBackend<T>::finish_reset(const T* squares, int splits) {
  const cudaStream_t stream = context_.stream();
  if (sharded()) {
    if (shard_sums_.empty()) shard_sums_ = Buffer<T>(context_, candidates_, Placement::device, "the shard sums");
    RBF_CUDA_CHECK(launch_sum_splits(squares, splits, as_int(candidates_), shard_sums_.get(), stream));
    sum_over_shards(gq_.get(), candidates_ * (k_ + 1));
    sum_over_shards(shard_sums_.get(), candidates_);
    squares = shard_sums_.get();
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
  template model::Selection CudaBackend<T>::shard_select_max_residual();
RBF_INSTANTIATE_ROW_SHARDS(float)
RBF_INSTANTIATE_ROW_SHARDS(double)
#undef RBF_INSTANTIATE_ROW_SHARDS

}  // namespace rbf::gpu
