// K-fold cross-validation for small data: folds, the choice of node count and widths, and the
// growth of the chosen model on every row.
#include "model/cross_validation.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "data/class_labels.hpp"
#include "data/errors.hpp"
#include "data/split.hpp"
#include "model/fit_scores.hpp"
#include "model/network_average.hpp"

namespace rbf::model {

namespace {

// The class of each row for a stratified assignment; empty for regression or unstratified.
std::vector<std::size_t> fold_labels(const data::Dataset& dataset, const Config& config) {
  if (dataset.task != data::Task::classification || !config.data.stratify) return {};
  return data::class_of_rows(dataset);
}

// The rows outside fold `k`, then the rows in it: a dataset whose rows from the returned
// count on are the fold's validation rows (TrainOptions::validation_from).
std::size_t fold_dataset(const data::Dataset& dataset, const std::vector<std::size_t>& fold_of, std::size_t k,
                         data::Dataset& out) {
  out = data::columns_of(dataset);
  out.rows = dataset.rows;
  out.x.reserve(dataset.x.size());
  out.y.reserve(dataset.y.size());
  out.weights.reserve(dataset.weights.size());
  std::size_t training = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < dataset.rows; ++i) {
      if ((fold_of[i] == k) != (pass == 1)) continue;
      out.x.insert(out.x.end(), dataset.x.begin() + static_cast<std::ptrdiff_t>(i * dataset.features),
                   dataset.x.begin() + static_cast<std::ptrdiff_t>((i + 1) * dataset.features));
      out.y.insert(out.y.end(), dataset.y.begin() + static_cast<std::ptrdiff_t>(i * dataset.targets),
                   dataset.y.begin() + static_cast<std::ptrdiff_t>((i + 1) * dataset.targets));
      if (!dataset.weights.empty()) out.weights.push_back(dataset.weights[i]);
      if (pass == 0) ++training;
    }
  }
  return training;
}

// Only the rows outside fold `k`: the training rows of that fold's model.
void fold_training_dataset(const data::Dataset& dataset, const std::vector<std::size_t>& fold_of, std::size_t k,
                           data::Dataset& out) {
  const std::size_t training = fold_dataset(dataset, fold_of, k, out);
  out.rows = training;
  out.x.resize(training * dataset.features);
  out.y.resize(training * dataset.targets);
  if (!out.weights.empty()) out.weights.resize(training);
}

// A growth of the folds' (for the choice, or for the average): it shares the run's stop flag,
// hooks and data digest, and none of what belongs to the growth on every row (its callbacks).
// Its iterations go to on_fold_iteration, where progress displays and Python's Ctrl-C check
// see them.
TrainOptions fold_growth_options(const TrainOptions& run, std::size_t growths_ahead) {
  TrainOptions o;
  o.on_iteration = run.on_fold_iteration;
  o.stop_requested = run.stop_requested;
  o.hooks = run.hooks;
  o.data_sha256 = run.data_sha256;
  o.growths_ahead = growths_ahead;
  o.patience_past_best = true;
  return o;
}

// Why these settings rule out cross-validation ("" when they do not): each needs one growth.
std::string settings_ruling_out_folds(const Config& config, bool resuming, bool checkpoints) {
  if (resuming) return "a resumed run continues the growth its checkpoint saved";
  if (!config.data.validation_path.empty()) return "a separate validation file is given";
  if (checkpoints) return "checkpoints save one growth, and cross-validation runs several";
  if (config.stopping.refit)
    return "stopping.refit grows again after a hold-out, and cross-validation grows on every row already";
  if (config.refine.every > 0 || config.refine.at_end)
    return "refinement keeps or rolls back its steps by the held-out validation rows";
  if (config.stopping.max_seconds > 0) return "stopping.max_seconds limits one growth";
  return "";
}

[[noreturn]] void throw_folds_refused(std::size_t folds, const std::string& why) {
  throw InputError(fmt::format("data.folds {}: {}; set data.folds to 0 (--folds 0) to hold out validation rows instead",
                               folds, why));
}

// While alive, info messages are not shown: a fold's growth says what the final one will say
// again (the output ridge it chose, ...), ten times over.
class FoldLogScope {
 public:
  FoldLogScope() : previous_(spdlog::get_level()) {
    if (previous_ < spdlog::level::warn) spdlog::set_level(spdlog::level::warn);
  }
  ~FoldLogScope() { spdlog::set_level(previous_); }
  FoldLogScope(const FoldLogScope&) = delete;
  FoldLogScope& operator=(const FoldLogScope&) = delete;

 private:
  spdlog::level::level_enum previous_;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
}

}  // namespace

double model_selection_work(const data::Dataset& dataset, const Config& config) {
  const double pool = static_cast<double>(std::min(config.candidates.pool, dataset.rows));
  return static_cast<double>(dataset.rows) * pool * static_cast<double>(config.candidates.width_factors.size());
}

std::string widths_text(const std::vector<double>& widths) {
  std::string text;
  for (double w : widths) text += (text.empty() ? "" : ",") + fmt::format("{}", w);
  return text;
}

std::size_t cross_validation_folds(const data::Dataset& dataset, const Config& config, const TrainOptions& options) {
  const std::size_t asked = config.data.folds;
  if (asked == 0) return 0;
  const bool automatic = asked == kFoldsAuto;
  const std::size_t folds = automatic ? kAutoFolds : asked;
  if (automatic) {
    // Only small data, with validation asked for, and enough rows for every fold.
    if (config.data.validation <= 0 || dataset.rows < 10 * folds) return 0;
    if (model_selection_work(dataset, config) > kCrossValidationMaxWork) return 0;
  }
  std::string why = settings_ruling_out_folds(config, options.resume != nullptr, options.checkpoint_every > 0);
  if (why.empty() && options.validation_from > 0) why = "a separate validation file is given";
  if (why.empty() && dataset.rows < 2 * folds) why = fmt::format("{} rows are too few for {} folds", dataset.rows, folds);
  if (why.empty() && dataset.task == data::Task::classification) {
    std::vector<std::size_t> count(dataset.class_names.size(), 0);
    for (std::size_t i = 0; i < dataset.rows && i < dataset.y.size(); ++i) {
      const auto c = static_cast<std::size_t>(dataset.y[i]);
      if (c < count.size()) ++count[c];
    }
    for (std::size_t c = 0; c < count.size() && why.empty(); ++c)
      if (count[c] < folds)
        why = fmt::format("class '{}' has {} rows, fewer than the {} folds", dataset.class_names[c], count[c], folds);
  }
  if (!why.empty()) {
    if (automatic) return 0;
    throw_folds_refused(asked, why);
  }
  return folds;
}

void check_folds_request(const Config& config, bool resuming) {
  if (config.data.folds == 0 || config.data.folds == kFoldsAuto) return;
  const std::string why = settings_ruling_out_folds(config, resuming, config.output.checkpoint_every > 0);
  if (!why.empty()) throw_folds_refused(config.data.folds, why);
}

Config resolve_auto_arithmetic(const Config& config, bool choosing_among_growths) {
  Config out = config;
  if (out.trainer.precision == Precision::auto_select)
    out.trainer.precision = choosing_among_growths ? Precision::float64 : Precision::float32;
  if (out.trainer.dependency_tol == kDependencyTolAuto)
    out.trainer.dependency_tol = out.trainer.precision == Precision::float64 ? 1e-9 : 1e-4;
  return out;
}

std::vector<std::vector<double>> cross_validation_width_sets(const std::vector<double>& width_factors) {
  std::vector<std::vector<double>> sets{width_factors};
  if (width_factors.size() > 1) {
    std::vector<double> wider = width_factors;
    wider.erase(std::min_element(wider.begin(), wider.end()));
    sets.push_back(wider);
  }
  return sets;
}

namespace detail {

CrossValidationChoice choose_from_folds(const std::vector<FoldCurves>& per_set) {
  CrossValidationChoice lowest, linear;  // the lowest mean MSE overall, and with no Gaussians
  for (std::size_t s = 0; s < per_set.size(); ++s) {
    const FoldCurves& f = per_set[s];
    if (f.rmse.empty()) continue;
    std::size_t common = f.rmse.front().size();
    for (const std::vector<double>& curve : f.rmse) common = std::min(common, curve.size());
    const double k = static_cast<double>(f.rmse.size());
    for (std::size_t m = 0; m < common; ++m) {
      CrossValidationChoice point;
      point.set = s;
      point.nodes = m;
      point.mse = 0;
      double square = 0, hit = 0;
      for (std::size_t j = 0; j < f.rmse.size(); ++j) {
        const double mse = f.rmse[j][m] * f.rmse[j][m];
        point.mse += mse;
        square += mse * mse;
        if (j < f.accuracy.size() && m < f.accuracy[j].size()) hit += f.accuracy[j][m];
      }
      point.mse /= k;
      if (!std::isfinite(point.mse)) continue;  // a node count some fold never scored
      const double variance = k > 1 ? std::max(0.0, (square - k * point.mse * point.mse) / (k - 1)) : 0.0;
      point.standard_error = std::sqrt(variance / k);
      point.accuracy = hit / k;
      if (point.mse < lowest.mse) lowest = point;
      if (m == 0 && point.mse < linear.mse) linear = point;
    }
  }
  // The one-standard-error rule (Breiman et al. 1984; Hastie, Tibshirani and Friedman,
  // "Elements of Statistical Learning", 7.10), applied to whether to have Gaussians at all:
  // within the folds' noise of the lowest, the model without them generalizes at least as well
  // and varies less from sample to sample.
  const bool keep_linear = lowest.nodes > 0 && linear.mse <= lowest.mse + lowest.standard_error;
  CrossValidationChoice choice = keep_linear ? linear : lowest;
  choice.lowest_nodes = lowest.nodes;
  choice.lowest_mse = lowest.mse;
  return choice;
}

TrainResult stopped_with_nothing_to_save(const std::string& stage) {
  TrainResult stopped;
  stopped.interrupted = true;
  stopped.nothing_to_save = true;
  stopped.stop_reason = "interrupted";
  stopped.unsaved_stage = stage;
  return stopped;
}

namespace {

// Every fold grown to max_nodes with every width set: the validation curves to choose from and
// each growth's output ridge. False when an interrupt stopped a growth.
bool grow_folds(const data::Dataset& dataset, const Config& config, const TrainOptions& options,
                const std::vector<std::size_t>& fold_of, std::size_t folds, const GrowFunction& grow,
                const CrossValidationReport& report, std::vector<FoldCurves>& per_set,
                std::vector<std::vector<double>>& ridges) {
  per_set.assign(report.width_sets.size(), FoldCurves());
  ridges.assign(report.width_sets.size(), std::vector<double>());
  data::Dataset fold;
  for (std::size_t s = 0; s < report.width_sets.size(); ++s) {
    for (std::size_t k = 0; k < folds; ++k) {
      Config c = config;
      c.candidates.width_factors = report.width_sets[s];
      c.data.folds = 0;
      c.data.validation_path.clear();
      // A fold stops as a hold-out growth does, `patience` nodes past its lowest validation
      // error: growing every fold to max_nodes made cross-validation cost 50-100 times a
      // hold-out fit where a few dozen nodes were chosen. The mean curve is taken over the node
      // counts every fold reached (choose_from_folds).
      // This fold's growth, the folds after it, the growth on all rows and the fold models.
      TrainOptions o = fold_growth_options(
          options, (report.width_sets.size() - s) * folds - k + 1 + (config.data.average_folds ? folds : 0));
      o.validation_from = fold_dataset(dataset, fold_of, k, fold);
      const double unscored = std::numeric_limits<double>::quiet_NaN();
      std::vector<double> curve(1, unscored), hits(1, unscored);
      o.on_iteration = [&](const IterationRecord& rec) {
        if (options.on_fold_iteration) options.on_fold_iteration(rec);
        if (rec.dependent || !(rec.val_rmse >= 0)) return;
        curve.resize(rec.nodes + 1, unscored);
        hits.resize(rec.nodes + 1, unscored);
        curve[rec.nodes] = rec.val_rmse;
        hits[rec.nodes] = rec.val_accuracy;
      };
      const std::string growth =
          fmt::format("cross-validation fold {} of {}, widths {}", k + 1, folds, widths_text(report.width_sets[s]));
      spdlog::debug("{}", growth);
      if (options.on_growth_start)
        options.on_growth_start(growth, c.stopping.max_nodes,
                                (report.width_sets.size() - s) * folds - k + (config.data.average_folds ? folds : 0));
      TrainResult r;
      {
        const FoldLogScope quiet;
        r = grow(fold, c, o);
      }
      if (r.interrupted) return false;
      curve[0] = r.zero_node_val_rmse;
      hits[0] = r.zero_node_val_accuracy;
      per_set[s].rmse.push_back(std::move(curve));
      per_set[s].accuracy.push_back(std::move(hits));
      ridges[s].push_back(r.output_ridge);
    }
  }
  return true;
}

void log_choice(const CrossValidationReport& report) {
  if (report.nodes > 0)
    spdlog::info("cross-validation chose widths {} and {} nodes (mean validation RMSE {:.6g}) in {:.2f} s",
                 widths_text(report.widths), report.nodes, report.rmse, report.seconds);
  else
    spdlog::info("cross-validation chose no Gaussians (mean validation RMSE {:.6g}) in {:.2f} s", report.rmse,
                 report.seconds);
  if (report.lowest_nodes != report.nodes)
    spdlog::info("cross-validation: {} node{} scored lowest (mean validation RMSE {:.6g}), within one standard error "
                 "of no Gaussians, so none are kept",
                 report.lowest_nodes, report.lowest_nodes == 1 ? "" : "s", report.lowest_rmse);
}

// Each fold's training rows grown to the chosen count and widths, in the standardization of
// the model on every row (`members`' first), appended to `members`. False when interrupted.
bool grow_fold_models(const data::Dataset& dataset, const Config& all, const TrainOptions& options,
                      const std::vector<std::size_t>& fold_of, std::size_t folds, const GrowFunction& grow,
                      std::vector<Network>& members) {
  data::Dataset fold;
  members.reserve(folds + 1);
  for (std::size_t k = 0; k < folds; ++k) {
    TrainOptions o = fold_growth_options(options, folds - k);
    o.scalers_from = &members.front();
    fold_training_dataset(dataset, fold_of, k, fold);
    if (options.on_growth_start)
      options.on_growth_start(fmt::format("fold {} of {}, for the average", k + 1, folds), all.stopping.max_nodes,
                              folds - k - 1);
    TrainResult r;
    {
      const FoldLogScope quiet;
      r = grow(fold, all, o);
    }
    if (r.interrupted) return false;
    members.push_back(std::move(r.network));
  }
  return true;
}

}  // namespace

TrainResult train_cross_validated(const data::Dataset& dataset, const Config& config, const TrainOptions& options,
                                  std::size_t folds, const GrowFunction& grow) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const std::vector<std::size_t> fold_of =
      data::fold_assignment(dataset.rows, folds, config.data.seed, fold_labels(dataset, config));
  CrossValidationReport report;
  report.folds = folds;
  report.width_sets = cross_validation_width_sets(config.candidates.width_factors);

  if (config.stopping.patience > 0) {
    spdlog::info("cross-validation: {} folds x {} width sets, each grown until {} nodes, or as many as it had at its "
                 "lowest validation error, bring no improvement (at most {} nodes)",
                 folds, report.width_sets.size(), config.stopping.patience, config.stopping.max_nodes);
  } else {
    spdlog::info("cross-validation: {} folds x {} width sets, each grown to {} nodes", folds, report.width_sets.size(),
                 config.stopping.max_nodes);
  }
  std::vector<FoldCurves> per_set;
  std::vector<std::vector<double>> ridges;
  // TrainResult's default stage is cross-validation's.
  if (!grow_folds(dataset, config, options, fold_of, folds, grow, report, per_set, ridges))
    return stopped_with_nothing_to_save(TrainResult().unsaved_stage);
  const CrossValidationChoice choice = choose_from_folds(per_set);
  if (!std::isfinite(choice.mse))
    throw RuntimeError("cross-validation: no fold produced a validation error to choose by");
  report.widths = report.width_sets[choice.set];
  report.nodes = choice.nodes;
  report.rmse = std::sqrt(choice.mse);
  report.lowest_nodes = choice.lowest_nodes;
  report.lowest_rmse = std::sqrt(choice.lowest_mse);
  report.accuracy = dataset.task == data::Task::classification ? choice.accuracy : -1;
  report.output_ridge = config.trainer.output_ridge == kOutputRidgeAuto ? median(ridges[choice.set])
                                                                          : config.trainer.output_ridge;
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();

  Config all = config;
  all.candidates.width_factors = report.widths;
  all.data.folds = 0;
  all.data.validation = 0;
  all.data.validation_path.clear();
  all.stopping.max_nodes = report.nodes;
  all.stopping.goal = 0;  // exactly the chosen count: a goal met on the folds' rows says nothing here
  all.stopping.refit = false;
  all.trainer.output_ridge = report.output_ridge;
  if (options.on_growth_start)
    options.on_growth_start("all rows", all.stopping.max_nodes,
                            config.data.average_folds && report.nodes > 0 ? folds : 0);
  log_choice(report);
  TrainOptions final_options = options;
  final_options.validation_from = 0;
  final_options.state_in_result = false;
  TrainResult result = grow(dataset, all, final_options);
  if (result.interrupted) {
    // Its checkpoint would resume a run with another configuration than the one saved with it.
    result.nothing_to_save = true;
    return result;
  }
  result.network.training_state.clear();
  if (config.data.average_folds && report.nodes > 0) {
    // The folds' models differ by their rows, and their mean with the model on every row
    // varies less than any one of them (docs/ACCURACY.md).
    const auto averaging_start = Clock::now();
    std::vector<Network> members{result.network};
    if (!grow_fold_models(dataset, all, options, fold_of, folds, grow, members))
      return stopped_with_nothing_to_save("averaging the folds' models, after the model on every row");
    result.network = average_networks(members);
    report.averaged_models = members.size();
    report.averaging_seconds = std::chrono::duration<double>(Clock::now() - averaging_start).count();
    spdlog::info("averaged the model on every row with the {} folds' models: {} Gaussians, in {:.2f} s", folds,
                 result.network.nodes(), report.averaging_seconds);
  }
  result.train_scores = score_rows(result.network, dataset, data::all_indices(dataset.rows));
  result.stop_reason = fmt::format("{}-fold cross-validation chose {} nodes", folds, report.nodes);
  result.cross_validation = report;
  return result;
}

}  // namespace detail
}  // namespace rbf::model
