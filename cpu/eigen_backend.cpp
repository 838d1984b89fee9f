// Eigen CPU backend: data, candidates, selection, add_node and update (the other jobs live beside it).
#include "cpu/eigen_backend.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "data/errors.hpp"
#include "contracts/candidate_storage.hpp"
#include "contracts/host_memory.hpp"
#include "contracts/gaussian_columns.hpp"

#include "cpu/cpu_threads.hpp"
#include "cpu/idle_cores.hpp"

namespace rbf::cpu {

using model::full_dot;
using model::gaussian_block;
using model::gaussian_gamma;
using model::kRowBlock;

template <typename T>
EigenBackend<T>::EigenBackend(int threads)
    : requested_threads_(threads),
      threads_(resolve_threads(threads)),
      idle_cores_(idle_cores_now()),
      parallel_work_(parallel_work(threads_, idle_cores_)),
      simd_(best_simd_variant()) {}

template <typename T>
void EigenBackend<T>::use_simd_variant(SimdVariant variant) {
  if (!simd_variant_supported(variant))
    throw RuntimeError(std::string("the ") + simd_variant_name(variant) + " kernels cannot run on this CPU");
  simd_ = variant;
}

template <typename T>
void EigenBackend<T>::set_training_data(const T* x, std::size_t n, std::size_t d, const T* y,
                                        std::size_t k) {
  if (n == 0 || d == 0 || k == 0) throw InputError("the training set is empty");
  if (shards_ && shards_->first_row() + n > shards_->total_rows())
    throw std::logic_error("a row shard's rows lie beyond the training set");
  n_ = n;
  d_ = d;
  k_ = k;
  if (requested_threads_ == 0) {  // the default: a team the rows can keep busy
    threads_ = default_team_for_rows(resolve_threads(0), n);
    parallel_work_ = parallel_work(threads_, idle_cores_);
  }
  // Column-major so that each feature, and later each candidate column, is contiguous.
  x_ = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(x, n, d);
  y_ = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(y, n, k);
  basis_ = 0;
  val_columns_ = 0;
  row_scale_.clear();
  free_ = MatrixFreeLayout<T>();  // belongs to the previous data; set_candidates builds the next
}

template <typename T>
void EigenBackend<T>::set_row_scale(const T* s) {
  if (n_ == 0) throw std::logic_error("set_row_scale must come after set_training_data");
  if (s == nullptr) {
    row_scale_.clear();
  } else {
    row_scale_.assign(s, s + n_);
  }
}

template <typename T>
void EigenBackend<T>::set_validation_data(const T* x, std::size_t nv) {
  nv_ = nv;
  x_val_.resize(static_cast<Eigen::Index>(nv), static_cast<Eigen::Index>(d_));
  if (nv > 0)
    x_val_ = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(x, nv, d_);
  val_columns_ = 0;
}

template <typename T>
void EigenBackend<T>::set_candidates(const T* centers, const T* widths, const std::size_t* rows,
                                     std::size_t count, const model::StorageRequest& storage) {
  count_ = count;
  centers_.assign(centers, centers + count * d_);
  rows_.assign(rows, rows + count);
  gamma_.resize(count);
  for (std::size_t c = 0; c < count; ++c) {
    if (!(widths[c] > 0)) throw InputError("candidate widths must be positive");
    gamma_[c] = gaussian_gamma(widths[c]);
  }
  // Within the caller's cap and what the machine can spare now; the costs, if any, are the
  // caller's CPU cost model's (model/switching/storage_rule.hpp).
  storage_ = model::decide_candidate_storage(
      model::storage_facts(storage, n_, count, sizeof(T), model::host_candidate_limit_bytes()));
  stored_ = storage_.store;
  phi_.resize(0, 0);
  if (stored_) {
    phi_.resize(static_cast<Eigen::Index>(n_), static_cast<Eigen::Index>(count));
    // A stop skips the remaining columns (the backend is then only destroyed: backend.hpp).
    const int team = threads_for_work(threads_, n_ * count * (d_ + 1), parallel_work_);
#pragma omp parallel for schedule(dynamic, 8) num_threads(team)
    for (long c = 0; c < static_cast<long>(count); ++c)
      if (!this->setup_stop_requested()) candidate_column(static_cast<std::size_t>(c), phi_.col(c).data());
  }
  free_ = stored_ ? MatrixFreeLayout<T>() : make_matrix_free_layout(x_.data(), n_, d_, centers_.data(), count);
  w_padded_.clear();
  if (!stored_ && !row_scale_.empty()) {  // padding rows weigh 0
    w_padded_.assign(free_.rows_padded, T(0));
    for (std::size_t i = 0; i < n_; ++i) w_padded_[i] = row_scale_[i] * row_scale_[i];
  }
  n_norm_.assign(count, T(0));
  s_proj_.assign(count, T(0));
  g_.setZero(static_cast<Eigen::Index>(count), static_cast<Eigen::Index>(k_));
  used_.assign(count, 0);
}

template <typename T>
void EigenBackend<T>::candidate_column(std::size_t c, T* out) const {
  gaussian_column(&centers_[c * d_], gamma_[c], out);
}

template <typename T>
void EigenBackend<T>::gaussian_column(const T* center, T gamma, T* out) const {
  std::vector<T> acc(std::min(kRowBlock, n_));
  for (std::size_t r0 = 0; r0 < n_; r0 += kRowBlock) {
    const std::size_t rows = std::min(kRowBlock, n_ - r0);
    gaussian_block(x_.data(), n_, d_, center, gamma, r0, rows, out + r0, acc.data());
  }
  for (std::size_t i = 0; i < row_scale_.size(); ++i) out[i] *= row_scale_[i];
}

template <typename T>
void EigenBackend<T>::ensure_basis_capacity(std::size_t columns) {
  const auto have = static_cast<std::size_t>(q_.cols());
  if (columns <= have) return;
  const std::size_t cap = std::max<std::size_t>(columns, std::max<std::size_t>(16, have * 2));
  q_.conservativeResize(static_cast<Eigen::Index>(n_), static_cast<Eigen::Index>(cap));
  z_history_.conservativeResize(static_cast<Eigen::Index>(count_), static_cast<Eigen::Index>(cap));
  phi_val_.conservativeResize(static_cast<Eigen::Index>(nv_), static_cast<Eigen::Index>(cap));
}

template <typename T>
std::string EigenBackend<T>::memory_shortfall(std::size_t nodes) const {
  // Per basis column: Q's rows, the projection history's candidates, a validation column.
  const std::size_t columns = std::min(nodes, count_) + 2;
  if (columns <= static_cast<std::size_t>(q_.cols())) return "";
  const double per_column = static_cast<double>(n_ + count_ + nv_) * sizeof(T);
  const double need = per_column * static_cast<double>(columns);
  const auto available = static_cast<double>(data::available_host_memory_bytes());
  if (available <= 0 || need <= available) return "";  // unknown: nothing to say
  const double fit = std::max(0.0, std::floor(available / per_column) - 2.0);
  return "needs " + model::memory_text(need) +
         " of memory for the basis Q, which grows with rows x nodes, and what grows beside it, but only " +
         model::memory_text(available) + " is available: at most " +
         std::to_string(static_cast<long long>(fit)) + " nodes fit";
}

template <typename T>
void EigenBackend<T>::reset_to_bias(std::vector<double>& a) {
  ensure_basis_capacity(1);
  // The bias column is s (1 unweighted); sum s_i^2 over every shard's rows is total_rows().
  const T q0 = T(1) / std::sqrt(static_cast<T>(total_rows()));
  q_.col(0).setConstant(q0);
  for (std::size_t i = 0; i < row_scale_.size(); ++i) q_(static_cast<Eigen::Index>(i), 0) *= row_scale_[i];
  basis_ = 1;
  val_columns_ = 0;  // validation columns belong to the nodes, which start over
  e_ = y_;
  std::vector<T> a_t(k_);
  for (std::size_t j = 0; j < k_; ++j)
    a_t[j] = full_dot(q_.col(0).data(), y_.col(static_cast<Eigen::Index>(j)).data(), n_);
  if (shards_) sum_over_shards(a_t.data(), k_);
  a.assign(k_, 0.0);
  for (std::size_t j = 0; j < k_; ++j) {
    e_.col(static_cast<Eigen::Index>(j)) -= a_t[j] * q_.col(0);
    a[j] = static_cast<double>(a_t[j]);
  }
  std::fill(used_.begin(), used_.end(), 0);
  z_columns_ = 0;
  // set_candidates may have stopped half-way. A shard still runs the (then quick) pass: the
  // other shards wait for its sums.
  if (this->setup_stop_requested() && !shards_) return;
  scoring_pass(true, q_.col(0), a_t);
  // A pass cut short by a stop leaves no projection history to trust.
  if (!this->setup_stop_requested()) z_columns_ = 1;
}

template <typename T>
Selection EigenBackend<T>::select_ols(double lambda, double tol) {
  Selection best;
  for (std::size_t c = 0; c < count_; ++c) {
    if (used_[c]) continue;
    const double n = n_norm_[c];
    const double rest = n - static_cast<double>(s_proj_[c]);
    if (!(rest > tol * n)) continue;  // dependent on the model (or NaN)
    double g2 = 0;
    for (std::size_t j = 0; j < k_; ++j) {
      const double g = g_(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(j));
      g2 += g * g;
    }
    const double err = g2 / (rest + lambda);
    if (!best.found || err > best.score) {
      best.found = true;
      best.index = c;
      best.score = err;
    }
  }
  return best;
}

template <typename T>
Selection EigenBackend<T>::select_max_residual() {
  // A shard holds the residual rows of its own centers only: the owner's score plus the
  // others' zeros is the same score, on every shard.
  std::vector<double> shard_scores;
  if (shards_) {
    shard_scores.assign(count_, 0.0);
    const std::size_t first = shards_->first_row();
    for (std::size_t c = 0; c < count_; ++c)
      if (!used_[c] && rows_[c] >= first && rows_[c] < first + n_)
        shard_scores[c] = static_cast<double>(e_.row(static_cast<Eigen::Index>(rows_[c] - first)).squaredNorm());
    shards_->sum(shard_scores.data(), count_);
  }
  Selection best;
  for (std::size_t c = 0; c < count_; ++c) {
    if (used_[c]) continue;
    const double score =
        shards_ ? shard_scores[c] : static_cast<double>(e_.row(static_cast<Eigen::Index>(rows_[c])).squaredNorm());
    if (!best.found || score > best.score) {
      best.found = true;
      best.index = c;
      best.score = score;
    }
  }
  return best;
}

template <typename T>
double EigenBackend<T>::add_node(std::size_t c, double tol, std::vector<double>& h) {
  if (c >= count_ || used_[c]) throw RuntimeError("internal error: candidate is not available");
  Vector phi(static_cast<Eigen::Index>(n_));
  if (stored_) {
    phi = phi_.col(static_cast<Eigen::Index>(c));
  } else {
    candidate_column(c, phi.data());
  }
  return orthogonalize(c, phi, tol, h);
}

template <typename T>
double EigenBackend<T>::add_node_at(const T* center, T width, double tol, std::vector<double>& h) {
  Vector phi(static_cast<Eigen::Index>(n_));
  gaussian_column(center, gaussian_gamma(width), phi.data());
  return orthogonalize(kNoCandidate, phi, tol, h);
}

template <typename T>
double EigenBackend<T>::update(bool statistics, std::vector<double>& a) {
  const auto t = static_cast<Eigen::Index>(basis_ - 1);
  const Vector q = q_.col(t);
  std::vector<T> a_t(k_);
  for (std::size_t j = 0; j < k_; ++j) a_t[j] = full_dot(q.data(), e_.col(static_cast<Eigen::Index>(j)).data(), n_);
  if (shards_) sum_over_shards(a_t.data(), k_);
  a.assign(k_, 0.0);
  double sse = 0;
  for (std::size_t j = 0; j < k_; ++j) {
    auto ej = e_.col(static_cast<Eigen::Index>(j));
    ej -= a_t[j] * q;
    a[j] = static_cast<double>(a_t[j]);
    sse += static_cast<double>(full_dot(ej.data(), ej.data(), n_));
  }
  if (shards_) shards_->sum(&sse, 1);
  if (statistics) {
    scoring_pass(false, q, a_t);
    if (z_columns_ == basis_ - 1) z_columns_ = basis_;
  }
  return sse;
}

template <typename T>
void EigenBackend<T>::sum_over_shards(T* values, std::size_t count) const {
  std::vector<double> sums(values, values + count);
  shards_->sum(sums.data(), count);
  for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<T>(sums[i]);
}

template <typename T>
std::size_t EigenBackend<T>::memory_bytes() const {
  const std::size_t elems = static_cast<std::size_t>(x_.size() + y_.size() + x_val_.size() + phi_.size() +
                                                     q_.size() + e_.size() + g_.size() + z_history_.size() +
                                                     phi_val_.size()) +
                            centers_.size() + 3 * count_;
  return elems * sizeof(T) + free_.bytes() + pass_sums_.size() * sizeof(double);
}

// Instantiates the class and the members defined above; the other eigen_*.cpp files
// instantiate their own members.
template class EigenBackend<float>;
template class EigenBackend<double>;

}  // namespace rbf::cpu
