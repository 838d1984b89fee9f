// Eigen CPU refinement engine: the formulas of contracts/refine_engine.hpp as per-chunk GEMMs.
//
// Rows are cut into fixed chunks; each chunk's partial sums (small: nodes x (d + 1 + k))
// are computed in T, in parallel, and added in chunk order in double, so results do not
// depend on the thread count.
#include "cpu/eigen_refine_engine.hpp"

#include <algorithm>
#include <cmath>

#include "data/errors.hpp"

#include "cpu/cpu_threads.hpp"
#include "cpu/idle_cores.hpp"

namespace rbf::cpu {

template <typename T>
EigenRefineEngine<T>::EigenRefineEngine(int threads)
    : threads_(resolve_threads(threads)), parallel_work_(parallel_work(threads_, idle_cores_now())) {}

template <typename T>
void EigenRefineEngine<T>::set_data(const T* x, std::size_t n, std::size_t d, const T* y, std::size_t k,
                                    const T* xv, std::size_t nv) {
  if (n == 0 || d == 0 || k == 0) throw InputError("refinement needs a non-empty training set");
  using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  n_ = n;
  d_ = d;
  k_ = k;
  nv_ = nv;
  x_ = Eigen::Map<const RowMajor>(x, static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(d));
  y_ = Eigen::Map<const RowMajor>(y, static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(k));
  xv_.resize(static_cast<Eigen::Index>(nv), static_cast<Eigen::Index>(d));
  if (nv > 0) xv_ = Eigen::Map<const RowMajor>(xv, static_cast<Eigen::Index>(nv), static_cast<Eigen::Index>(d));
}

template <typename T>
void EigenRefineEngine<T>::check(const NodeParams& p) const {
  if (n_ == 0) throw RuntimeError("internal error: refinement engine has no data");
  if (p.d != d_ || p.k != k_ || p.nodes == 0 || p.values.size() != p.nodes * (d_ + 1 + k_) + k_)
    throw RuntimeError("internal error: refinement parameters do not match the data");
}

template <typename T>
typename EigenRefineEngine<T>::Network EigenRefineEngine<T>::unpack(const NodeParams& p) const {
  const auto t = static_cast<Eigen::Index>(p.nodes), d = static_cast<Eigen::Index>(d_), k = static_cast<Eigen::Index>(k_);
  Network net;
  net.c.resize(t, d);
  net.w.resize(t, k);
  net.gamma.resize(t);
  net.b.resize(k);
  for (Eigen::Index j = 0; j < t; ++j) {
    for (Eigen::Index l = 0; l < d; ++l) net.c(j, l) = static_cast<T>(p.centers()[j * d + l]);
    for (Eigen::Index o = 0; o < k; ++o) net.w(j, o) = static_cast<T>(p.weights()[j * k + o]);
    const double sigma = std::exp(p.log_widths()[j]);
    net.gamma(j) = static_cast<T>(1.0 / (2.0 * sigma * sigma));
  }
  for (Eigen::Index o = 0; o < k; ++o) net.b(o) = static_cast<T>(p.bias()[o]);
  net.csq = net.c.rowwise().squaredNorm();
  return net;
}

template <typename T>
void EigenRefineEngine<T>::forward(const Network& net, const Eigen::Ref<const Matrix>& x, Matrix& dist, Matrix& phi) {
  const Vector xsq = x.rowwise().squaredNorm();
  dist.noalias() = x * net.c.transpose();
  dist = ((T(-2) * dist.array()).colwise() + xsq.array()).rowwise() + net.csq.transpose().array();
  dist = dist.array().max(T(0));
  phi = (-(dist.array().rowwise() * net.gamma.transpose().array())).exp();
}

template <typename T>
double EigenRefineEngine<T>::loss_gradient(const NodeParams& p, std::vector<double>* gradient) {
  check(p);
  const Network net = unpack(p);
  const auto t = static_cast<Eigen::Index>(p.nodes), d = static_cast<Eigen::Index>(d_), k = static_cast<Eigen::Index>(k_);
  const auto n = static_cast<Eigen::Index>(n_), chunk = static_cast<Eigen::Index>(chunk_rows_);
  const Eigen::Index chunks = (n + chunk - 1) / chunk;
  const bool grad = gradient != nullptr;

  // Per chunk: loss, then [A^T X | A^T 1 | (A ⊙ D)^T 1 | Phi^T E] (t x (d + 2 + k)) and E^T 1.
  std::vector<double> loss(static_cast<std::size_t>(chunks));
  std::vector<Matrix> nodes_part(grad ? static_cast<std::size_t>(chunks) : 0);
  std::vector<Vector> bias_part(grad ? static_cast<std::size_t>(chunks) : 0);
  // A thread per chunk at most, and none whose share of the work would not pay for waking
  // it: with one chunk (up to 2048 rows) the whole pass runs on the calling thread.
  const std::size_t work = n_ * p.nodes * (d_ + 2 + 2 * k_);
  const int team = std::min<int>(threads_for_work(threads_, grad ? 2 * work : work, parallel_work_), static_cast<int>(chunks));
#pragma omp parallel num_threads(team)
  {
    Matrix dist, phi, e, a;
#pragma omp for schedule(static)
    for (Eigen::Index b = 0; b < chunks; ++b) {
      const Eigen::Index r0 = b * chunk, rows = std::min(chunk, n - r0);
      const auto x = x_.middleRows(r0, rows);
      forward(net, x, dist, phi);
      e.noalias() = phi * net.w;
      e.rowwise() += net.b.transpose();
      e -= y_.middleRows(r0, rows);
      loss[static_cast<std::size_t>(b)] = 0.5 * static_cast<double>(e.squaredNorm());
      if (!grad) continue;
      a.noalias() = e * net.w.transpose();
      a.array() *= phi.array();
      Matrix& part = nodes_part[static_cast<std::size_t>(b)];
      part.resize(t, d + 2 + k);
      part.leftCols(d).noalias() = a.transpose() * x;
      part.col(d) = a.colwise().sum().transpose();
      part.col(d + 1) = (a.array() * dist.array()).colwise().sum().transpose();
      part.rightCols(k).noalias() = phi.transpose() * e;
      bias_part[static_cast<std::size_t>(b)] = e.colwise().sum().transpose();
    }
  }
  double total = 0;
  for (double v : loss) total += v;
  if (!grad) return total;

  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(t, d + 2 + k);
  Eigen::VectorXd bias = Eigen::VectorXd::Zero(k);
  for (Eigen::Index b = 0; b < chunks; ++b) {
    sum += nodes_part[static_cast<std::size_t>(b)].template cast<double>();
    bias += bias_part[static_cast<std::size_t>(b)].template cast<double>();
  }
  NodeParams g(p.nodes, d_, k_);
  for (Eigen::Index j = 0; j < t; ++j) {
    const double sigma = std::exp(p.log_widths()[j]);
    const double two_gamma = 1.0 / (sigma * sigma);
    for (Eigen::Index l = 0; l < d; ++l)
      g.centers()[j * d + l] = two_gamma * (sum(j, l) - sum(j, d) * p.centers()[j * d + l]);
    g.log_widths()[j] = two_gamma * sum(j, d + 1);
    for (Eigen::Index o = 0; o < k; ++o) g.weights()[j * k + o] = sum(j, d + 2 + o);
  }
  for (Eigen::Index o = 0; o < k; ++o) g.bias()[o] = bias(o);
  *gradient = std::move(g.values);
  return total;
}

template <typename T>
double EigenRefineEngine<T>::normal_equations(const NodeParams& p, std::vector<double>& jtj, std::vector<double>& jte) {
  check(p);
  const Network net = unpack(p);
  const auto t = static_cast<Eigen::Index>(p.nodes), d = static_cast<Eigen::Index>(d_), k = static_cast<Eigen::Index>(k_);
  const auto n = static_cast<Eigen::Index>(n_);
  const auto params = static_cast<Eigen::Index>(p.size());
  const auto at_width = static_cast<Eigen::Index>(p.log_widths_at()), at_w = static_cast<Eigen::Index>(p.weights_at()),
             at_b = static_cast<Eigen::Index>(p.bias_at());
  // J is (rows * k) x P per chunk; about 4M values per chunk keeps it in a few tens of MB.
  const Eigen::Index chunk = std::max<Eigen::Index>(1, std::min<Eigen::Index>(static_cast<Eigen::Index>(chunk_rows_),
                                                                              (Eigen::Index{1} << 22) / (k * params)));
  Eigen::MatrixXd jtj_sum = Eigen::MatrixXd::Zero(params, params);
  Eigen::VectorXd jte_sum = Eigen::VectorXd::Zero(params);
  double total = 0;
  Matrix dist, phi, e, jt;
  Matrix jtj_part(params, params);
  for (Eigen::Index r0 = 0; r0 < n; r0 += chunk) {
    const Eigen::Index rows = std::min(chunk, n - r0);
    const auto x = x_.middleRows(r0, rows);
    forward(net, x, dist, phi);
    e.noalias() = phi * net.w;
    e.rowwise() += net.b.transpose();
    e -= y_.middleRows(r0, rows);
    total += 0.5 * static_cast<double>(e.squaredNorm());
    // J^T, one column per (row, output), so that each row of J is written contiguously.
    jt.resize(params, rows * k);
    jt.setZero();
    for (Eigen::Index i = 0; i < rows; ++i) {
      for (Eigen::Index o = 0; o < k; ++o) {
        T* col = jt.col(i * k + o).data();
        for (Eigen::Index j = 0; j < t; ++j) {
          const T s = net.w(j, o) * (phi(i, j) * (T(2) * net.gamma(j)));
          for (Eigen::Index l = 0; l < d; ++l) col[j * d + l] = s * (x(i, l) - net.c(j, l));
          col[at_width + j] = s * dist(i, j);
          col[at_w + j * k + o] = phi(i, j);
        }
        col[at_b + o] = T(1);
      }
    }
    // r = vec(E) in the same (row, output) order as J's rows.
    const Matrix et = e.transpose();
    const Eigen::Map<const Vector> r(et.data(), rows * k);
    // The lower triangle only (a rank update, half a GEMM's work); mirrored below.
    jtj_part.setZero();
    jtj_part.template selfadjointView<Eigen::Lower>().rankUpdate(jt);
    jtj_sum.template triangularView<Eigen::Lower>() += jtj_part.template cast<double>();
    jte_sum += (jt * r).template cast<double>();
  }
  jtj_sum.template triangularView<Eigen::StrictlyUpper>() = jtj_sum.transpose();
  jtj.resize(static_cast<std::size_t>(params * params));
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(jtj.data(), params, params) = jtj_sum;
  jte.assign(jte_sum.data(), jte_sum.data() + params);
  return total;
}

template <typename T>
void EigenRefineEngine<T>::predict_validation(const NodeParams& p, std::vector<double>& out) {
  check(p);
  out.assign(nv_ * k_, 0.0);
  if (nv_ == 0) return;
  const Network net = unpack(p);
  const auto nv = static_cast<Eigen::Index>(nv_), chunk = static_cast<Eigen::Index>(chunk_rows_);
  Matrix dist, phi, f;
  for (Eigen::Index r0 = 0; r0 < nv; r0 += chunk) {
    const Eigen::Index rows = std::min(chunk, nv - r0);
    forward(net, xv_.middleRows(r0, rows), dist, phi);
    f.noalias() = phi * net.w;
    f.rowwise() += net.b.transpose();
    for (Eigen::Index i = 0; i < rows; ++i)
      for (Eigen::Index o = 0; o < f.cols(); ++o)
        out[static_cast<std::size_t>((r0 + i) * f.cols() + o)] = static_cast<double>(f(i, o));
  }
}

template <typename T>
std::size_t EigenRefineEngine<T>::memory_bytes() const {
  return static_cast<std::size_t>(x_.size() + y_.size() + xv_.size()) * sizeof(T);
}

template class EigenRefineEngine<float>;
template class EigenRefineEngine<double>;

}  // namespace rbf::cpu
