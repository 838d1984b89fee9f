// The CUDA + cuBLAS implementation of model::RefineEngine<T>: the data stay on the device,
// each call streams the training rows through in chunks and copies back only small results.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "gpu/cuda_context.hpp"
#include "gpu/device_buffer.hpp"
#include "contracts/refine_engine.hpp"

namespace rbf::gpu {

template <typename T>
class CudaRefineEngine final : public model::RefineEngine<T> {
 public:
  explicit CudaRefineEngine(std::shared_ptr<Context> context);
  ~CudaRefineEngine() override = default;

  model::BackendKind kind() const override { return model::BackendKind::gpu; }
  void set_data(const T* x, std::size_t n, std::size_t d, const T* y, std::size_t k, const T* xv,
                std::size_t nv) override;
  double loss_gradient(const model::NodeParams& p, std::vector<double>* gradient) override;
  double normal_equations(const model::NodeParams& p, std::vector<double>& jtj, std::vector<double>& jte) override;
  void predict_validation(const model::NodeParams& p, std::vector<double>& out) override;
  std::size_t memory_bytes() const override;

  const Context& context() const { return context_; }
  // Caps the rows per chunk (0: no cap beyond the memory limits). A test seam: results must
  // not depend on it beyond rounding.
  void set_max_chunk_rows(std::size_t rows) { max_chunk_rows_ = rows; }
  // Row chunks the last call went through.
  std::size_t last_chunks() const { return last_chunks_; }

 private:
  void check(const model::NodeParams& p, const char* call) const;
  // Uploads C, ||c||^2, gamma, W and b (all column-major, in T) for p.
  void upload(const model::NodeParams& p);
  // Rows per chunk of the N x nodes temporaries; fixed for given nodes, so results are
  // reproducible call after call.
  std::size_t chunk_rows(std::size_t nodes) const;
  // S = X_c C^T, then Phi in place: rows x nodes at out (ld ld).
  void activations(const T* x, std::size_t ldx, const T* xsq, std::size_t rows, std::size_t nodes, T* out,
                   std::size_t ld);
  // F = Phi W into e (rows x k, ld rows).
  void outputs(const T* phi, std::size_t ld, std::size_t rows, std::size_t nodes, T* e);
  // The loop every call shares: sizes Phi (work_a_) and F (e_) for chunks of at most `chunk`
  // of `rows` rows of x (ld ldx, norms xsq), then per chunk [r0, r0 + m) forms Phi (ld ld)
  // and F and calls step(r0, m, ld). Counts the chunks in last_chunks_.
  template <typename Step>
  void for_each_chunk(const T* x, std::size_t ldx, const T* xsq, std::size_t rows, std::size_t nodes,
                      std::size_t chunk, const char* f_name, Step step);
  // Copies the first `count` device sums back (a synchronizing copy) and returns the sum of the
  // residual blocks' squared errors at their front.
  double copy_back_sums(std::size_t count);
  template <typename U>
  void ensure(Buffer<U>& buffer, std::size_t count, const char* what);

  std::shared_ptr<Context> shared_context_;  // the run's one device context
  const Context& context_;
  Buffer<T> constants_;  // 1, 0 for cuBLAS in device pointer mode

  // Training rows: [X | 1] (npad x (d + 1), column-major; the ones column serves the column
  // sums), ||x_n||^2 and Y (npad x k); validation features (nvpad x d) and their norms.
  std::size_t n_ = 0, npad_ = 0, d_ = 0, k_ = 0, nv_ = 0, nvpad_ = 0;
  Buffer<T> x_, xsq_, y_, xv_, xvsq_;
  // Bytes the N x nodes temporaries may take, fixed at set_data.
  std::size_t chunk_bytes_ = 0;
  std::size_t max_chunk_rows_ = 0;
  std::size_t last_chunks_ = 0;

  // The network: C (nodes x d) | ||c||^2 | gamma | W (nodes x k) | b (k).
  std::vector<T> params_host_;
  Buffer<T> params_;
  std::size_t nodes_ = 0;
  const T* centers() const { return params_.get(); }
  const T* csq() const { return params_.get() + nodes_ * d_; }
  const T* gamma() const { return csq() + nodes_; }
  const T* weights() const { return gamma() + nodes_; }
  const T* bias() const { return weights() + nodes_ * k_; }

  // Per-call scratch, grown on demand and kept: Phi/A (chunk x nodes), E (chunk x k), one
  // chunk's small results in T and their sums across chunks in double, the adjoint's
  // per-block column sums, the Jacobian block and its J^T J and J^T r.
  Buffer<T> work_a_, e_, results_, jac_, jtj_, jte_;
  Buffer<double> sums_, hpart_;
  std::vector<double> sums_host_;
  std::vector<T> staging_;
};

}  // namespace rbf::gpu
