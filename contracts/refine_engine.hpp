// The compute interface of refinement: loss, gradient and Gauss-Newton normal equations of a
// whole Gaussian RBF network on the training rows, as GEMMs on a backend's device.
//
// Refinement jointly optimizes every center, width and output weight on the squared error.
// The optimizers (model/refine.cpp: Adam, Levenberg-Marquardt) run on the host in double and
// ask an engine only for these batch-level quantities, so the CPU (Eigen) and GPU (cuBLAS)
// engines share one optimizer and can be compared call by call.
//
// The mathematics every engine implements (standardized units, j = node, n = row, o = output):
//   gamma_j = 1 / (2 sigma_j^2),  sigma_j = exp(log_width_j)
//   D_nj    = max(0, ||x_n||^2 + ||c_j||^2 - 2 (X C^T)_nj)         (one GEMM)
//   Phi_nj  = exp(-gamma_j D_nj)
//   E       = Phi W + 1 b^T - Y                                     (N x k residual)
//   loss    = 0.5 ||E||_F^2
//   A_nj    = Phi_nj (E_n . W_j)                                    (dL/dPhi ⊙ Phi)
//   dL/dW   = Phi^T E,   dL/db = E^T 1
//   dL/dc_j = 2 gamma_j ((A^T X)_j - (A^T 1)_j c_j)
//   dL/dlog_width_j = 2 gamma_j (A ⊙ D)^T 1
// Jacobian of the residual vector r = vec(E), row (n, o), for Levenberg-Marquardt:
//   dr/dc_jl = W_jo Phi_nj 2 gamma_j (x_nl - c_jl),   dr/dlog_width_j = W_jo Phi_nj 2 gamma_j D_nj,
//   dr/dW_jo' = Phi_nj [o = o'],                       dr/db_o' = [o = o'].
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "contracts/backend_options.hpp"

namespace rbf::model {

// Every trainable parameter of a network in standardized units, as one flat vector:
//   [ centers (nodes x d, row-major) | log widths (nodes) | weights (nodes x k, row-major) | bias (k) ]
struct NodeParams {
  std::size_t nodes = 0, d = 0, k = 0;
  std::vector<double> values;

  NodeParams() = default;
  NodeParams(std::size_t nodes_, std::size_t d_, std::size_t k_)
      : nodes(nodes_), d(d_), k(k_), values(nodes_ * (d_ + 1 + k_) + k_, 0.0) {}

  std::size_t size() const { return values.size(); }
  std::size_t log_widths_at() const { return nodes * d; }
  std::size_t weights_at() const { return nodes * (d + 1); }
  std::size_t bias_at() const { return nodes * (d + 1 + k); }

  double* centers() { return values.data(); }
  const double* centers() const { return values.data(); }
  double* log_widths() { return values.data() + log_widths_at(); }
  const double* log_widths() const { return values.data() + log_widths_at(); }
  double* weights() { return values.data() + weights_at(); }
  const double* weights() const { return values.data() + weights_at(); }
  double* bias() { return values.data() + bias_at(); }
  const double* bias() const { return values.data() + bias_at(); }
};

template <typename T>
class RefineEngine {
 public:
  virtual ~RefineEngine() = default;
  RefineEngine() = default;
  RefineEngine(const RefineEngine&) = delete;
  RefineEngine& operator=(const RefineEngine&) = delete;

  virtual BackendKind kind() const = 0;
  // "cpu" or "gpu", for logs and messages.
  std::string name() const { return backend_name(kind()); }

  // Copies the standardized data: training features x (n x d) and targets y (n x k), and
  // validation features xv (nv x d, nv may be 0); all row-major.
  virtual void set_data(const T* x, std::size_t n, std::size_t d, const T* y, std::size_t k, const T* xv,
                        std::size_t nv) = 0;

  // 0.5 ||E||_F^2 over the training rows at p; when `gradient` is not null it receives
  // d loss / d p.values (same layout and size as p.values). Arithmetic in T, sums across
  // row chunks in double; deterministic for a given engine and thread count.
  virtual double loss_gradient(const NodeParams& p, std::vector<double>* gradient) = 0;

  // Gauss-Newton normal equations of r = vec(E) at p: jtj = J^T J (P x P, P = p.size(),
  // row-major, both triangles filled) and jte = J^T r (P). Returns 0.5 ||E||_F^2.
  virtual double normal_equations(const NodeParams& p, std::vector<double>& jtj, std::vector<double>& jte) = 0;

  // Standardized predictions Phi_val W + 1 b^T on the validation rows: nv x k, row-major.
  virtual void predict_validation(const NodeParams& p, std::vector<double>& out) = 0;

  // Bytes of memory (host or device) the engine holds now.
  virtual std::size_t memory_bytes() const = 0;
};

// Floating-point operations of one loss_gradient call: the GEMMs X C^T, Phi W, A^T X,
// Phi^T E and the elementwise work, counted the same way for every engine and benchmark.
inline double refine_epoch_flops(std::size_t n, std::size_t nodes, std::size_t d, std::size_t k) {
  const double nt = static_cast<double>(n) * static_cast<double>(nodes);
  return nt * (2.0 * static_cast<double>(d) + 2.0 * static_cast<double>(k) + 2.0 * static_cast<double>(k) +
               2.0 * static_cast<double>(d + 1) + 2.0 * static_cast<double>(k) + 8.0);
}

}  // namespace rbf::model
