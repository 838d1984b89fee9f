// The Eigen CPU backend: the trainer's large state in host memory, OpenMP over candidates.
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cpu/matrix_free_layout.hpp"
#include "cpu/simd_variant.hpp"
#include "contracts/backend.hpp"

namespace rbf::cpu {

using model::Backend;
using model::BackendState;
using model::Selection;

template <typename T>
class EigenBackend final : public Backend<T> {
 public:
  // threads <= 0: OpenMP's default (all cores).
  explicit EigenBackend(int threads = 0);

  model::BackendKind kind() const override { return model::BackendKind::cpu; }
  // As one row shard, every sum over rows below also goes through `shards`; without it (the
  // default) the backend holds every row and its arithmetic is exactly the unsharded one.
  void set_row_shards(std::shared_ptr<model::RowShards> shards) override {
    if (n_ != 0) throw std::logic_error("set_row_shards must come before set_training_data");
    shards_ = std::move(shards);
  }
  void set_training_data(const T* x, std::size_t n, std::size_t d, const T* y,
                         std::size_t k) override;
  void set_row_scale(const T* s) override;
  void set_validation_data(const T* x, std::size_t nv) override;
  void set_candidates(const T* centers, const T* widths, const std::size_t* rows,
                      std::size_t count, const model::StorageRequest& storage) override;
  model::StorageDecision candidate_storage() const override { return storage_; }
  std::string memory_shortfall(std::size_t nodes) const override;
  void reset_to_bias(std::vector<double>& a) override;
  void mark_used(std::size_t c) override { used_.at(c) = 1; }
  Selection select_ols(double lambda, double tol) override;
  Selection select_max_residual() override;
  double add_node(std::size_t c, double tol, std::vector<double>& h) override;
  double add_node_at(const T* center, T width, double tol, std::vector<double>& h) override;
  double update(bool statistics, std::vector<double>& a) override;
  void add_validation_column(std::size_t c) override;
  void add_validation_column_at(const T* center, T width) override;
  void predict_validation(const double* w, std::size_t columns, std::vector<double>& out) override;
  std::size_t nodes() const override { return basis_ == 0 ? 0 : basis_ - 1; }
  std::size_t reorthogonalizations() const override { return reorthogonalizations_; }
  std::size_t memory_bytes() const override;
  void export_state(BackendState<T>& state) const override;
  void import_state(const BackendState<T>& state) override;

  // The SIMD variant of the matrix-free scoring pass: the widest this CPU supports unless a
  // test or benchmark picks another (which must be supported; RuntimeError otherwise).
  SimdVariant simd_variant() const { return simd_; }
  void use_simd_variant(SimdVariant variant);

  // The orthonormal basis Q (n x (nodes + 1)), for tests of its orthogonality.
  Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> basis() const {
    return q_.leftCols(static_cast<Eigen::Index>(basis_));
  }

 private:
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;  // column-major
  using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

  // One pass over every unused candidate column (eigen_scoring_pass.cpp). With
  // `reset`: n_c, s_c = z_c^2, g_c = phi_c^T E. Otherwise s_c += z_c^2, g_c -= z_c a.
  // Either way z_c = phi_c^T q for the newest q is kept in the history Z.
  void scoring_pass(bool reset, const Vector& q, const std::vector<T>& a);
  // The pass over the stored Phi_C.
  void stored_pass(bool reset, const Vector& q, const std::vector<T>& a);
  // The same pass without Phi_C: every Gaussian is computed from X and the centers by the
  // SIMD kernel (eigen_matrix_free_pass.cpp).
  void matrix_free_pass(bool reset, const Vector& q, const std::vector<T>& a);
  // Candidate c's column over all training rows into out (eigen_backend.cpp).
  void candidate_column(std::size_t c, T* out) const;
  // Column phi(X; center, gamma) over all training rows into out, as candidate_column does.
  void gaussian_column(const T* center, T gamma, T* out) const;
  // The next validation column, as gaussian_column computes a training one (eigen_validation.cpp).
  void add_validation_column_with(const T* center, T gamma);
  // Marks "no candidate" for orthogonalize: an off-pool node, with no projection history.
  static constexpr std::size_t kNoCandidate = static_cast<std::size_t>(-1);
  // CGS of phi against Q, twice when DGKS asks, appending the new basis vector; c is marked
  // used unless it is kNoCandidate (eigen_orthogonalize.cpp).
  double orthogonalize(std::size_t c, const Vector& phi, double tol, std::vector<double>& h);
  void ensure_basis_capacity(std::size_t columns);

  // Training rows of the whole model: this backend's, or all shards' when it is one.
  std::size_t total_rows() const { return shards_ ? shards_->total_rows() : n_; }
  // Replaces `count` partial sums over this shard's rows by their totals over all shards
  // (added in double, eigen_backend.cpp).
  void sum_over_shards(T* values, std::size_t count) const;
  // A shard's pass keeps its partial sums of candidate c (z_c, and n_c and g_c on a reset) for
  // one sum over the shards, after which apply_shard_sums applies them as the unsharded pass
  // applies its own (eigen_scoring_pass.cpp).
  std::size_t pass_stride(bool reset) const { return reset ? k_ + 2 : 1; }
  template <typename S>
  void keep_pass_sums(bool reset, std::size_t c, S z, S n, const S* g) {
    double* slot = pass_sums_.data() + c * pass_stride(reset);
    slot[0] = static_cast<double>(z);
    if (!reset) return;
    slot[1] = static_cast<double>(n);
    for (std::size_t j = 0; j < k_; ++j) slot[2 + j] = static_cast<double>(g[j]);
  }
  void apply_shard_sums(bool reset, const std::vector<T>& a);

  int requested_threads_ = 0;  // trainer.threads as given; 0 = default_team_for_rows
  int threads_ = 0;
  int idle_cores_ = 1;  // idle_cores_now() when the backend was made
  // From how many operations a parallel region takes all threads_ (cpu_threads.hpp).
  std::size_t parallel_work_ = 0;
  SimdVariant simd_ = SimdVariant::portable;
  std::size_t n_ = 0, d_ = 0, k_ = 0, nv_ = 0;
  Matrix x_;      // n x d
  Matrix y_;      // n x k
  Matrix x_val_;  // nv x d
  std::vector<T> row_scale_;  // set_row_scale's s (n); empty: unweighted
  std::vector<T> w_padded_;   // s^2 padded like free_.x, for the matrix-free pass's n_c; empty: unweighted

  std::size_t count_ = 0;      // candidates
  std::vector<T> centers_;     // count x d row-major
  std::vector<T> gamma_;       // 1 / (2 sigma^2) per candidate
  std::vector<std::size_t> rows_;
  bool stored_ = false;  // storage_.store
  model::StorageDecision storage_;
  Matrix phi_;                 // n x count when stored
  MatrixFreeLayout<T> free_;   // the matrix-free pass's inputs when not stored
  std::vector<T> q_padded_, e_padded_;  // the pass's q and E, padded like free_.x

  Matrix q_;                   // n x capacity; the first basis_ columns are Q
  std::size_t basis_ = 0;      // columns of Q in use (bias included)
  std::size_t reorthogonalizations_ = 0;  // CGS calls that projected twice
  Matrix e_;                   // residual, n x k
  std::vector<T> n_norm_, s_proj_;  // n_c, s_c
  Matrix g_;                   // count x k
  Matrix z_history_;           // count x capacity: z_c for each basis vector
  std::size_t z_columns_ = 0;  // basis vectors whose z is in the history for every unused candidate
  std::vector<unsigned char> used_;
  Matrix phi_val_;             // nv x capacity
  std::size_t val_columns_ = 0;

  std::shared_ptr<model::RowShards> shards_;  // set when this backend is one row shard
  std::vector<double> pass_sums_;             // a shard's per-candidate sums of one pass
};

}  // namespace rbf::cpu
