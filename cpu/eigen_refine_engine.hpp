// The Eigen CPU refinement engine: loss, gradient and normal equations over row chunks.
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <memory>
#include <vector>

#include "contracts/refine_engine.hpp"

namespace rbf::cpu {

using model::NodeParams;
using model::RefineEngine;

template <typename T>
class EigenRefineEngine final : public RefineEngine<T> {
 public:
  // threads <= 0: OpenMP's default (all cores).
  explicit EigenRefineEngine(int threads = 0);

  model::BackendKind kind() const override { return model::BackendKind::cpu; }
  void set_data(const T* x, std::size_t n, std::size_t d, const T* y, std::size_t k, const T* xv,
                std::size_t nv) override;
  double loss_gradient(const NodeParams& p, std::vector<double>* gradient) override;
  double normal_equations(const NodeParams& p, std::vector<double>& jtj, std::vector<double>& jte) override;
  void predict_validation(const NodeParams& p, std::vector<double>& out) override;
  std::size_t memory_bytes() const override;

  // Rows per chunk (a test seam: results must not depend on it beyond rounding).
  void set_chunk_rows(std::size_t rows) { chunk_rows_ = rows > 0 ? rows : 1; }

 private:
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;  // column-major
  using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

  // The network's parameters in T: C (nodes x d), gamma, W (nodes x k), b (k).
  struct Network {
    Matrix c, w;
    Vector gamma, csq, b;
  };
  Network unpack(const NodeParams& p) const;
  // Forward pass of rows [r0, r0 + rows) of x: D (clamped squared distances) and Phi.
  static void forward(const Network& net, const Eigen::Ref<const Matrix>& x, Matrix& dist, Matrix& phi);
  void check(const NodeParams& p) const;

  int threads_ = 0;
  // From how many operations a parallel region takes all threads_ (cpu_threads.hpp).
  std::size_t parallel_work_ = 0;
  std::size_t n_ = 0, d_ = 0, k_ = 0, nv_ = 0;
  std::size_t chunk_rows_ = 2048;
  Matrix x_, y_, xv_;  // n x d, n x k, nv x d
};

}  // namespace rbf::cpu
