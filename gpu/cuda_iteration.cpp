// One growth iteration on the GPU with one wait: lazy CGS2 of the chosen candidate and the
// scoring pass of its column queued back to back, their results copied back together.
//
// add_node then update() would wait twice: for CGS's results, which the host needs before it
// can queue the pass, and then for the pass's. The pass only needs what CGS2 leaves on the
// device (lazy CGS2's u, h2, ||q|| and a), so both steps are queued at once, and the update's
// statistics kernel does nothing if the node proves dependent (the pass is wasted then).
#include <algorithm>
#include <chrono>
#include <vector>

#include "gpu/candidate_kernels.hpp"
#include "gpu/cuda_backend.hpp"
#include "gpu/cuda_backend_internal.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/gaussian_column_kernels.hpp"
#include "gpu/kernel_constants.hpp"

namespace rbf::gpu {

template <typename T>
double CudaBackend<T>::add_and_update(std::size_t c, double tol, std::vector<double>& h, bool statistics,
                                      std::vector<double>& a, typename model::Backend<T>::PhaseTimes& times) {
  context_.activate();
  require_candidates("add_and_update");
  // The one-wait way needs lazy CGS2 with c's history row, and an update whose selection is
  // taken on the device without reviving dependents first; anything else takes two steps.
  // (As add_node: with candidates marked dependent, only the last selection is known unmarked.)
  const bool history_ok = c < candidates_ && history_columns_ == nodes_ + 1 &&
                          (!dependents_marked_ || (selection_ready_ && last_request_.mode == kSelectOls &&
                                                   ready_selection_.found && ready_selection_.index == c));
  const bool revives = last_request_.mode == kSelectOls && dependents_marked_ && last_request_.tol < dependent_tol_;
  if (!statistics || !lazy_cgs() || !device_selects() || last_request_.mode != kSelectOls || revives ||
      !history_ok || used_host_[c] != 0)
    return model::Backend<T>::add_and_update(c, tol, h, statistics, a, times);

  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  ensure_basis_capacity(nodes_ + 2);
  selection_ready_ = false;
  a_ready_ = false;
  used_host_[c] = 1;
  const T* phi = candidate_column(c);
  queue_lazy_cgs(phi, history_.get() + c * basis_capacity_, used_.get() + c, tol);
  if (!added_) {
    added_ = std::make_unique<Event>();
    updated_ = std::make_unique<Event>();
    copied_ = std::make_unique<Event>();
  }
  const cudaStream_t stream = context_.stream();
  RBF_CUDA_CHECK(cudaEventRecord(added_->get(), stream));
  // The new column is u at nodes_ + 1, unfinished: z is corrected as update() does lazily.
  History<T> column = history(nodes_ + 1);
  column.g = h_.get() + basis_capacity_;
  column.norm = results_.get() + kNormU;
  column.dependent = results_.get() + kDependent;
  queue_statistics(q_.get() + (nodes_ + 1) * npad_, column);
  RBF_CUDA_CHECK(cudaEventRecord(updated_->get(), stream));
  RBF_CUDA_CHECK(cudaMemcpyAsync(results_host_.host(), results_.get(), (h_offset_ + nodes_ + 1) * sizeof(double),
                                 cudaMemcpyDeviceToHost, stream));
  RBF_CUDA_CHECK(cudaEventRecord(copied_->get(), stream));
  // The selection just made is the next add's candidate unless the caller does something
  // else: its column is evaluated while the host waits for the results and takes them in.
  const bool ahead = !stored_;
  if (ahead)
    RBF_CUDA_CHECK(launch_eval_selected_column(xt_.get(), npad_, as_int(n_), as_int(npad_), as_int(d_), centers_.get(),
                                               gamma_.get(), results_.get() + kSelectedIndex, column_.get(), stream,
                                               row_scale()));
  RBF_CUDA_CHECK(cudaEventSynchronize(copied_->get()));

  const double norm = take_cgs_results(h);
  float update_ms = 0.0f;
  if (norm > 0) RBF_CUDA_CHECK(cudaEventElapsedTime(&update_ms, added_->get(), updated_->get()));
  times.update_ms = update_ms;
  times.add_ms = std::max(0.0, std::chrono::duration<double, std::milli>(Clock::now() - t0).count() - update_ms);
  if (norm == 0) return 0.0;  // the statistics kernel did nothing; the next select queues anew

  // The update's bookkeeping, as update() does it for lazy CGS2.
  a_ready_ = false;
  history_columns_ = nodes_ + 1;
  const double* results = results_host_.host();
  a.assign(results + kResultA, results + kResultA + k_);
  ready_selection_ = read_selection();
  selection_ready_ = true;
  if (ahead && ready_selection_.found) column_ahead_ = ready_selection_.index;
  lazy_residual_norm2(a);
  return norm;
}

template double CudaBackend<float>::add_and_update(std::size_t, double, std::vector<double>&, bool, std::vector<double>&,
                                                   model::Backend<float>::PhaseTimes&);
template double CudaBackend<double>::add_and_update(std::size_t, double, std::vector<double>&, bool,
                                                    std::vector<double>&, model::Backend<double>::PhaseTimes&);

}  // namespace rbf::gpu
