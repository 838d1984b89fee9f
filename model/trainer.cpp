// The incremental OLS trainer's entry points and the base-width heuristic; a run itself is
// model/growth_run.hpp.
#include "model/trainer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <spdlog/spdlog.h>

#include "data/errors.hpp"
#include "data/sample_weights.hpp"
#include "data/split.hpp"
#include "model/cross_validation.hpp"
#include "model/growth_run.hpp"
#include "model/partitioned_training.hpp"
#include "model/probability_scale.hpp"
#include "model/training_data.hpp"
#include "model/training_memory.hpp"
#include "model/width_choice.hpp"

namespace rbf::model {

using detail::GrowthRun;

namespace {

TrainResult grow(const data::Dataset& dataset, const Config& config, const TrainOptions& options) {
  check_training_memory(dataset, config);  // before the first large allocation, not after it
  return config.trainer.precision == Precision::float64 ? GrowthRun<double>(dataset, config, options).run()
                                                        : GrowthRun<float>(dataset, config, options).run();
}

// A classifier's probability scale (model/probability_scale.cpp), and which rows fitted it.
void calibrate_on(TrainResult& result, const data::Dataset& dataset, const std::vector<std::size_t>& rows,
                  const char* which) {
  result.proba_rows = calibrate_probabilities(result.network, dataset, rows);
  if (result.proba_rows > 0) result.proba_fitted_on = which;
}

// A run's split scored by the network it kept, and its probability scale fitted on the rows
// validation held out (the training rows where there are none).
void score_and_calibrate(TrainResult& result, const data::Dataset& dataset, const data::Split& split) {
  result.train_scores = score_rows(result.network, dataset, split.train);
  result.validation_scores = score_rows(result.network, dataset, split.validation);
  if (split.validation.empty())
    calibrate_on(result, dataset, split.train, "training");
  else
    calibrate_on(result, dataset, split.validation, "validation");
}

// stopping.refit: grows result.network's node count again on every row, with the run's
// config otherwise, and puts that network in its place. Interrupted, the result stays the
// early-stopped run's, with its training state, as the checkpoint to resume.
void refit_on_all_rows(const data::Dataset& dataset, const Config& config, const TrainOptions& options,
                       TrainResult& result) {
  const std::size_t nodes = result.network.nodes();
  Config all = config;
  all.data.validation = 0;
  all.data.validation_path.clear();
  all.stopping.max_nodes = nodes;
  all.stopping.goal = 0;         // exactly `nodes`, not fewer: the goal was met on fewer rows
  all.stopping.max_seconds = 0;  // growing `nodes` again costs about what it took to get there
  // Without validation rows the refit cannot choose a penalty: it takes the one validation chose.
  all.trainer.output_ridge = result.output_ridge;
  // ... and the linear terms it grew beside, fitted again on every row.
  all.trainer.linear_terms = result.network.linear.empty() ? LinearTerms::off : LinearTerms::on;
  TrainOptions again_options;
  again_options.stop_requested = options.stop_requested;
  again_options.data_sha256 = options.data_sha256;
  again_options.hooks = options.hooks;
  spdlog::info("refit: growing the {} nodes kept on validation again on all {} rows", nodes, dataset.rows);
  TrainResult again = grow(dataset, all, again_options);
  if (again.interrupted) {
    result.interrupted = true;
    result.stop_reason = "interrupted";
    result.events.push_back("refit on all rows interrupted; the checkpoint is the run before it");
    return;
  }
  const double proba_scale = result.network.proba_scale;  // fitted on the rows now grown on
  result.network = std::move(again.network);
  result.network.proba_scale = proba_scale;
  result.network.training_state.clear();
  result.train_scores = score_rows(result.network, dataset, data::all_indices(dataset.rows));
  result.refit.done = true;
  result.refit.nodes = result.network.nodes();
  result.refit.rows = again.train_rows;
  result.refit.seconds = again.setup_seconds + again.seconds;
  result.refit.stop_reason = again.stop_reason;
  result.linear_ridge = again.linear_ridge;
  result.refine_seconds += again.refine_seconds;
  for (const std::string& event : again.events) result.events.push_back("refit: " + event);
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

// Continued training needs the data the network was made for: its features (by name, where
// both have names), its task, and for a classifier its classes in the same order.
void check_init_matches(const Network& init, const data::Dataset& ds) {
  const std::string what = ds.source + " cannot continue the model";
  if (init.task != ds.task)
    throw InputError(what + ": the model is a " + (init.task == data::Task::classification ? "classifier" : "regressor") +
                     " and these data are for " +
                     (ds.task == data::Task::classification ? "classification" : "regression"));
  if (init.inputs != ds.features)
    throw InputError(what + ": the model has " + std::to_string(init.inputs) + " features, the data " +
                     std::to_string(ds.features));
  if (ds.task == data::Task::classification && init.class_names != ds.class_names)
    throw InputError(what + ": its classes are " + joined(init.class_names) + ", the data's " + joined(ds.class_names) +
                     " (every class, in the same order)");
  if (ds.task == data::Task::regression && init.outputs != ds.targets)
    throw InputError(what + ": the model has " + std::to_string(init.outputs) + " targets, the data " +
                     std::to_string(ds.targets));
  for (std::size_t f = 0; f < ds.features && f < init.feature_names.size(); ++f)
    if (init.feature_names[f] != ds.feature_names[f] && !generic_feature_name(init.feature_names[f], f) &&
        !generic_feature_name(ds.feature_names[f], f))
      throw InputError(what + ": its feature " + std::to_string(f + 1) + " is '" + init.feature_names[f] +
                       "', the data's '" + ds.feature_names[f] + "'");
}

// TrainOptions::init: one growth from the network's nodes (model/growth_init.cpp), without
// model selection, which would train new models from scratch.
TrainResult continue_training(const data::Dataset& dataset, const Config& asked, const TrainOptions& options) {
  check_init_matches(*options.init, dataset);
  Config config = resolve_auto_arithmetic(asked, false);
  config.stopping.refit = false;
  TrainOptions run = options;
  run.scalers_from = options.init;
  TrainResult result = grow(dataset, config, run);
  if (result.interrupted) return result;
  score_and_calibrate(result, dataset, detail::validation_split(dataset, config, options.validation_from));
  result.network.training_state.clear();
  return result;
}

}  // namespace

// Training on numbers (every dataset, once encoded).
TrainResult train_numbers(const data::Dataset& dataset, const Config& asked, const TrainOptions& options) {
  if (asked.trainer.partitions > 1) {
    TrainResult result = train_partitioned(dataset, asked, options, train_numbers);
    if (!result.interrupted)
      score_and_calibrate(result, dataset, detail::validation_split(dataset, asked, options.validation_from));
    return result;
  }
  if (options.init != nullptr) return continue_training(dataset, asked, options);
  const std::size_t folds = cross_validation_folds(dataset, asked, options);
  const bool choose_widths = chooses_widths_on_validation(dataset, asked, options, folds);
  const Config resolved = resolve_auto_arithmetic(asked, folds > 0 || choose_widths);
  if (folds > 0) {
    TrainResult result = detail::train_cross_validated(dataset, resolved, options, folds, grow);
    // The kept model was grown (or its folds' models averaged) over every row: no row is
    // held out to fit the probabilities on, so they are fitted on all of them.
    if (!result.interrupted) calibrate_on(result, dataset, data::all_indices(dataset.rows), "all");
    return result;
  }
  TrainOptions first = options;
  first.state_in_result = resolved.stopping.refit;
  first.growths_ahead = options.growths_ahead + (resolved.stopping.refit ? 1 : 0);  // a refit grows once more
  Config config = resolved;  // with the widths chosen, when they are (a refit grows those)
  TrainResult result = choose_widths ? detail::train_choosing_widths(dataset, resolved, first, grow, config)
                                     : grow(dataset, resolved, first);
  if (result.interrupted) return result;
  // The run's own split, scored by the network it kept; a refit adds the validation rows, and
  // keeps the probability scale fitted on them here.
  const data::Split split = detail::validation_split(dataset, config, options.validation_from);
  score_and_calibrate(result, dataset, split);
  if (config.stopping.refit && !split.validation.empty()) {
    refit_on_all_rows(dataset, config, options, result);
  } else {
    result.network.training_state.clear();
  }
  return result;
}

data::EncodingOptions encoding_options(const Config& config) {
  data::EncodingOptions options;
  options.categorical = config.data.categorical;
  options.missing = config.data.missing;
  options.rare_rows = config.data.rare_level_rows;
  options.max_levels = config.data.max_levels;
  return options;
}

TrainResult train(const data::Dataset& given, const Config& asked, const TrainOptions& given_options) {
  if (given.features == 0) throw InputError(given.source + ": no feature columns to train on");
  const auto start = std::chrono::steady_clock::now();
  // Rows of weight 0 take no part in the fit: they are left out before anything is drawn.
  TrainOptions options = given_options;
  data::Dataset weighed;
  const bool dropped = data::drop_zero_weight_rows(given, weighed, options.validation_from);
  const data::Dataset& dataset = dropped ? weighed : given;
  if (dropped) spdlog::info("left out {} rows of sample weight 0", given.rows - dataset.rows);
  const auto timed = [&start](TrainResult result) {
    result.total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  // Raw tabular data are encoded once, as a continued model encoded its own, and the encoding
  // goes with every network the run hands out, so that each predicts from raw rows.
  // One scan of the data for gaps: at 100M rows it costs seconds.
  const bool raw = data::needs_encoding(dataset);
  data::FeatureEncoding encoding;
  if (options.init) {
    encoding = options.init->encoding;
  } else if (raw) {
    encoding = data::fit_encoding(dataset, encoding_options(asked));
  }
  if (encoding.empty() && !raw) return timed(train_numbers(dataset, asked, options));
  data::Dataset encoded = dataset;
  data::apply_encoding(encoding, encoded);  // an empty encoding refuses missing cells and text
  TrainOptions run = options;
  if (options.on_checkpoint) {
    run.on_checkpoint = [&options, &encoding](const Network& network) {
      Network raw = network;
      raw.encoding = encoding;
      options.on_checkpoint(raw);
    };
  }
  TrainResult result = train_numbers(encoded, asked, run);
  if (result.network.inputs > 0) result.network.encoding = encoding;
  return timed(std::move(result));
}

TrainResult train(const data::Dataset& dataset, const Config& config, const IterationCallback& on_iteration,
                  const TrainerHooks& hooks) {
  TrainOptions options;
  options.on_iteration = on_iteration;
  options.hooks = hooks;
  return train(dataset, config, options);
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
