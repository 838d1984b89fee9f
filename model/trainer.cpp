// The incremental OLS trainer (orthogonal forward selection), backend-independent.
#include "model/trainer.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>

#include "data/errors.hpp"
#include "data/split.hpp"
#include "model/backend_factory.hpp"
#include "model/triangular.hpp"

namespace rbf::model {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Standardized training and validation matrices, ready for a backend.
struct PreparedData {
  std::size_t d = 0, k = 0;
  std::vector<std::size_t> train_rows, val_rows;  // indices into the dataset
  std::vector<double> x_train, y_train, x_val;    // standardized, row-major
  std::vector<double> y_val_raw;                  // raw targets (regression) or one-hot
  std::vector<std::size_t> val_class;             // classification: true class per row
  data::Standardizer x_scaler, y_scaler;
};

PreparedData prepare(const data::Dataset& ds, const Config& config) {
  if (ds.rows < 2) throw InputError(ds.source + ": at least 2 data rows are needed to train, found " + std::to_string(ds.rows));
  PreparedData p;
  p.d = ds.features;
  const bool classify = ds.task == data::Task::classification;
  if (classify && ds.class_names.size() < 2)
    throw InputError(ds.source + ": classification needs at least 2 classes, found " + std::to_string(ds.class_names.size()));
  p.k = classify ? ds.class_names.size() : ds.targets;

  const data::Split split = data::train_validation_split(ds.rows, config.data.validation, config.data.seed);
  p.train_rows = split.train;
  p.val_rows = split.validation;

  p.x_scaler = data::Standardizer::fit(ds.x.data(), ds.rows, ds.features, p.train_rows);
  auto take_x = [&](const std::vector<std::size_t>& rows, std::vector<double>& out) {
    out.resize(rows.size() * p.d);
    for (std::size_t i = 0; i < rows.size(); ++i)
      std::copy_n(ds.row(rows[i]), p.d, out.begin() + static_cast<std::ptrdiff_t>(i * p.d));
    p.x_scaler.transform(out.data(), rows.size());
  };
  take_x(p.train_rows, p.x_train);
  take_x(p.val_rows, p.x_val);

  auto take_y = [&](const std::vector<std::size_t>& rows, std::vector<double>& out) {
    out.assign(rows.size() * p.k, 0.0);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (classify) {
        out[i * p.k + static_cast<std::size_t>(ds.y[rows[i]])] = 1.0;
      } else {
        std::copy_n(ds.y.begin() + static_cast<std::ptrdiff_t>(rows[i] * ds.targets), p.k,
                    out.begin() + static_cast<std::ptrdiff_t>(i * p.k));
      }
    }
  };
  take_y(p.train_rows, p.y_train);
  take_y(p.val_rows, p.y_val_raw);
  if (classify) {
    p.y_scaler = data::Standardizer::identity(p.k);
    for (std::size_t r : p.val_rows) p.val_class.push_back(static_cast<std::size_t>(ds.y[r]));
  } else {
    p.y_scaler = data::Standardizer::fit(p.y_train.data(), p.train_rows.size(), p.k);
    p.y_scaler.transform(p.y_train.data(), p.train_rows.size());
  }
  return p;
}

// The candidate pool: P sampled training rows times S widths, candidate c = p * S + s.
struct CandidatePool {
  std::vector<double> centers;      // count x d, standardized
  std::vector<double> widths;       // count
  std::vector<std::size_t> rows;    // training-set row of each center
  std::size_t per_row = 1;          // S
  std::size_t base_width = 0;       // index s of the factor closest to 1
  double sigma0 = 1;
};

CandidatePool make_pool(const PreparedData& p, const Config& config) {
  const std::size_t n = p.train_rows.size();
  CandidatePool pool;
  pool.sigma0 = config.candidates.sigma0 > 0
                    ? config.candidates.sigma0
                    : median_distance(p.x_train.data(), n, p.d, config.candidates.sigma0_sample,
                                      config.data.seed + 1);
  const auto& factors = config.candidates.width_factors;
  pool.per_row = factors.size();
  for (std::size_t s = 0; s < factors.size(); ++s)
    if (std::abs(std::log(factors[s])) < std::abs(std::log(factors[pool.base_width]))) pool.base_width = s;
  const std::vector<std::size_t> picked = data::sample_indices(n, config.candidates.pool, config.data.seed + 2);
  for (std::size_t r : picked) {
    for (double f : factors) {
      pool.centers.insert(pool.centers.end(), p.x_train.begin() + static_cast<std::ptrdiff_t>(r * p.d),
                          p.x_train.begin() + static_cast<std::ptrdiff_t>((r + 1) * p.d));
      pool.widths.push_back(f * pool.sigma0);
      pool.rows.push_back(r);
    }
  }
  return pool;
}

template <typename T>
std::vector<T> to_scalar(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// Validation metrics of the model with the first `nodes` nodes.
struct ValidationScore {
  double rmse = -1, accuracy = -1;
};

template <typename T>
ValidationScore score_validation(Backend<T>& backend, const PreparedData& p, const std::vector<double>& w,
                                 std::size_t nodes, bool classify, std::vector<double>& scratch) {
  ValidationScore score;
  const std::size_t nv = p.val_rows.size();
  if (nv == 0) return score;
  backend.predict_validation(w.data(), nodes, scratch);
  if (!classify) p.y_scaler.inverse_transform(scratch.data(), nv);
  double sse = 0;
  for (std::size_t i = 0; i < scratch.size(); ++i) {
    const double e = scratch[i] - p.y_val_raw[i];
    sse += e * e;
  }
  score.rmse = std::sqrt(sse / static_cast<double>(scratch.size()));
  if (classify) {
    std::size_t right = 0;
    for (std::size_t i = 0; i < nv; ++i) {
      const double* row = scratch.data() + i * p.k;
      const auto best = static_cast<std::size_t>(std::max_element(row, row + p.k) - row);
      right += best == p.val_class[i];
    }
    score.accuracy = static_cast<double>(right) / static_cast<double>(nv);
  }
  return score;
}

template <typename T>
TrainResult train_with(const data::Dataset& ds, const Config& config, const IterationCallback& on_iteration) {
  const auto setup_start = Clock::now();
  const bool classify = ds.task == data::Task::classification;
  const PreparedData p = prepare(ds, config);
  const CandidatePool pool = make_pool(p, config);
  const std::size_t n = p.train_rows.size(), nv = p.val_rows.size(), k = p.k;
  const std::size_t count = pool.widths.size();

  std::unique_ptr<Backend<T>> backend =
      make_backend<T>(config.backend.kind, config.backend, config.trainer.threads);
  {
    const auto x = to_scalar<T>(p.x_train), y = to_scalar<T>(p.y_train), xv = to_scalar<T>(p.x_val);
    backend->set_training_data(x.data(), n, p.d, y.data(), k);
    backend->set_validation_data(xv.data(), nv);
    const auto centers = to_scalar<T>(pool.centers), widths = to_scalar<T>(pool.widths);
    backend->set_candidates(centers.data(), widths.data(), pool.rows.data(), count,
                            config.candidates.memory_budget_mb * 1024.0 * 1024.0);
  }
  const bool ols = config.trainer.strategy == Strategy::ols;
  std::vector<double> a;
  backend->reset_to_bias(a);
  if (!ols) {
    // max_residual places a node at the worst-fitted row with the base width only.
    for (std::size_t c = 0; c < count; ++c)
      if (c % pool.per_row != pool.base_width) backend->mark_used(c);
  }

  TrainResult result;
  result.train_rows = n;
  result.validation_rows = nv;
  result.candidates = count;
  result.candidates_stored = backend->candidates_stored();
  result.sigma0 = pool.sigma0;
  result.setup_seconds = ms_since(setup_start) / 1000.0;

  const std::size_t max_nodes = config.stopping.max_nodes;
  UpperTriangular r(max_nodes + 1);  // R of [1, Phi_selected] = Q R
  std::vector<double> theta(a);      // Q^T Y, row-major (nodes+1) x k
  r.set_column(0, {std::sqrt(static_cast<double>(n))});
  std::vector<std::size_t> chosen;   // candidate per node
  std::vector<double> h, weights, scratch;
  const double total_sse0 = [&] {
    double s = 0;
    for (double v : p.y_train) s += v * v;
    for (double v : a) s -= v * v;
    return std::max(0.0, s);
  }();
  const double denom = static_cast<double>(n * k);
  double train_rmse = std::sqrt(total_sse0 / denom);

  std::size_t best_nodes = 0, since_best = 0;
  ValidationScore best;
  if (nv > 0) {
    r.solve(theta, k, 0, weights);
    best = score_validation(*backend, p, weights, 0, classify, scratch);
  }
  std::vector<double> train_rmse_at{train_rmse};

  const auto loop_start = Clock::now();
  std::size_t iteration = 0;
  result.stop_reason = "reached max_nodes";
  while (chosen.size() < max_nodes) {
    if (config.stopping.goal > 0 && train_rmse <= config.stopping.goal) {
      result.stop_reason = "reached the training error goal";
      break;
    }
    if (config.stopping.max_seconds > 0 && ms_since(loop_start) / 1000.0 >= config.stopping.max_seconds) {
      result.stop_reason = "reached max_seconds";
      break;
    }
    IterationRecord rec;
    rec.iteration = ++iteration;
    rec.backend = backend->name();
    const auto t0 = Clock::now();
    const Selection sel = ols ? backend->select_ols(config.trainer.lambda, config.trainer.dependency_tol)
                              : backend->select_max_residual();
    rec.select_ms = ms_since(t0);
    if (!sel.found) {
      result.stop_reason = "no admissible candidate left";
      --iteration;
      break;
    }
    const std::size_t c = sel.index;
    rec.row = static_cast<long long>(p.train_rows[pool.rows[c]]);
    rec.width = pool.widths[c];

    const auto t1 = Clock::now();
    const double norm = backend->add_node(c, config.trainer.dependency_tol, h);
    rec.add_ms = ms_since(t1);
    if (norm > 0) {
      const auto t2 = Clock::now();
      backend->update(ols, a);
      rec.update_ms = ms_since(t2);
      h.push_back(norm);
      r.set_column(chosen.size() + 1, h);
      theta.insert(theta.end(), a.begin(), a.end());
      chosen.push_back(c);
    } else {
      rec.dependent = true;
    }
    rec.nodes = chosen.size();

    const auto t3 = Clock::now();
    if (!rec.dependent) {
      // The SSE from the basis coefficients is exact in exact arithmetic and costs nothing:
      // ||E||^2 = ||Y||^2 - ||Q^T Y||^2; recomputing from E would need another pass.
      double sse = total_sse0;
      for (std::size_t i = k; i < theta.size(); ++i) sse -= theta[i] * theta[i];
      train_rmse = std::sqrt(std::max(0.0, sse) / denom);
      train_rmse_at.push_back(train_rmse);
      if (nv > 0) {
        backend->add_validation_column(c);
        r.solve(theta, k, chosen.size(), weights);
        const ValidationScore v = score_validation(*backend, p, weights, chosen.size(), classify, scratch);
        rec.val_rmse = v.rmse;
        rec.val_accuracy = v.accuracy;
        if (v.rmse < best.rmse) {
          best = v;
          best_nodes = chosen.size();
          since_best = 0;
        } else {
          ++since_best;
        }
      }
    }
    rec.train_rmse = train_rmse;
    rec.evaluate_ms = ms_since(t3);
    rec.total_ms = ms_since(t0);
    result.iterations.push_back(rec);
    if (on_iteration) on_iteration(rec);
    if (nv > 0 && config.stopping.patience > 0 && since_best >= config.stopping.patience) {
      result.stop_reason = "validation error did not improve for " + std::to_string(config.stopping.patience) + " iterations";
      break;
    }
  }
  result.seconds = ms_since(loop_start) / 1000.0;

  // Keep the best model on validation, or the last one without validation.
  const std::size_t keep = nv > 0 ? best_nodes : chosen.size();
  r.solve(theta, k, keep, weights);
  Network& net = result.network;
  net.task = ds.task;
  net.inputs = p.d;
  net.outputs = k;
  net.feature_names = ds.feature_names;
  net.target_names = ds.target_names;
  net.class_names = ds.class_names;
  net.x_scaler = p.x_scaler;
  net.y_scaler = p.y_scaler;
  net.bias.assign(weights.begin(), weights.begin() + static_cast<std::ptrdiff_t>(k));
  net.weights.assign(weights.begin() + static_cast<std::ptrdiff_t>(k), weights.end());
  for (std::size_t j = 0; j < keep; ++j) {
    const std::size_t c = chosen[j];
    net.centers.insert(net.centers.end(), pool.centers.begin() + static_cast<std::ptrdiff_t>(c * p.d),
                       pool.centers.begin() + static_cast<std::ptrdiff_t>((c + 1) * p.d));
    net.widths.push_back(pool.widths[c]);
  }
  net.provenance.backend = backend->name();
  result.final_train_rmse = train_rmse_at[keep];
  result.best_val_rmse = best.rmse;
  result.best_val_accuracy = best.accuracy;
  return result;
}

}  // namespace

TrainResult train(const data::Dataset& dataset, const Config& config, const IterationCallback& on_iteration) {
  if (dataset.features == 0) throw InputError(dataset.source + ": no feature columns to train on");
  if (config.trainer.precision == Precision::float64) return train_with<double>(dataset, config, on_iteration);
  return train_with<float>(dataset, config, on_iteration);
}

double median_distance(const double* x, std::size_t n, std::size_t d, std::size_t sample, std::uint64_t seed) {
  const std::vector<std::size_t> rows = data::sample_indices(n, std::max<std::size_t>(sample, 2), seed);
  std::vector<double> dist;
  dist.reserve(rows.size() * (rows.size() - 1) / 2);
  for (std::size_t a = 0; a < rows.size(); ++a) {
    for (std::size_t b = a + 1; b < rows.size(); ++b) {
      double s = 0;
      for (std::size_t j = 0; j < d; ++j) {
        const double diff = x[rows[a] * d + j] - x[rows[b] * d + j];
        s += diff * diff;
      }
      dist.push_back(std::sqrt(s));
    }
  }
  if (dist.empty()) return 1.0;
  auto mid = dist.begin() + static_cast<std::ptrdiff_t>(dist.size() / 2);
  std::nth_element(dist.begin(), mid, dist.end());
  return *mid > 0 ? *mid : 1.0;
}

}  // namespace rbf::model
