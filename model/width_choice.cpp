// The width factors chosen on the validation rows: two growths on one split, the better kept.
#include "model/width_choice.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <limits>
#include <string>
#include <vector>

#include "model/training_data.hpp"

namespace rbf::model {

bool chooses_widths_on_validation(const data::Dataset& dataset, const Config& config, const TrainOptions& options,
                                  std::size_t folds) {
  if (folds > 0 || config.data.folds != kFoldsAuto) return false;
  if (config.candidates.width_factors.size() < 2) return false;
  if (config.data.validation <= 0 && config.data.validation_path.empty() && options.validation_from == 0) return false;
  if (options.resume != nullptr || options.checkpoint_every > 0) return false;
  if (config.refine.every > 0 || config.refine.at_end || config.stopping.max_seconds > 0) return false;
  if (model_selection_work(dataset, config) > kWidthChoiceMaxWork) return false;
  // The fraction may hold out nothing: a stratified split keeps every row of a class with one
  // row in training, and with no validation rows the two growths could not be told apart.
  return !detail::validation_split(dataset, config, options.validation_from).validation.empty();
}

namespace detail {

namespace {

// A growth's validation MSE for the comparison; +infinity when it has none.
double validation_mse(const TrainResult& r) {
  return r.best_val_rmse >= 0 ? r.best_val_rmse * r.best_val_rmse : std::numeric_limits<double>::infinity();
}

}  // namespace

TrainResult train_choosing_widths(const data::Dataset& dataset, const Config& config, const TrainOptions& options,
                                  const GrowFunction& grow, Config& chosen) {
  const std::vector<std::vector<double>> sets = cross_validation_width_sets(config.candidates.width_factors);
  std::vector<TrainResult> results;
  std::vector<std::vector<IterationRecord>> records(sets.size());
  std::size_t best = 0;
  for (std::size_t s = 0; s < sets.size(); ++s) {
    Config c = config;
    c.candidates.width_factors = sets[s];
    TrainOptions o = options;
    o.growths_ahead = sets.size() - s - 1 + options.growths_ahead;  // this set's, the next's, and what follows
    o.on_iteration = [&, s](const IterationRecord& rec) {
      records[s].push_back(rec);
      if (options.on_fold_iteration) options.on_fold_iteration(rec);
    };
    const std::string growth = fmt::format("widths {} ({} of {})", widths_text(sets[s]), s + 1, sets.size());
    spdlog::info("choosing the widths on the validation rows: growing {}", growth);
    if (options.on_growth_start) options.on_growth_start(growth, c.stopping.max_nodes, o.growths_ahead - 1);
    results.push_back(grow(dataset, c, o));
    if (results[s].interrupted)
      return stopped_with_nothing_to_save("the width choice on the validation rows, before either growth was kept");
    if (validation_mse(results[s]) < validation_mse(results[best])) best = s;
  }
  TrainResult result = std::move(results[best]);
  chosen = config;
  chosen.candidates.width_factors = sets[best];
  std::string compared;
  for (std::size_t s = 0; s < results.size(); ++s) {
    if (s == best) continue;
    compared += fmt::format("{} widths {}: {:.6g} ({} nodes, {:.2f} s)", compared.empty() ? "" : ";",
                            widths_text(sets[s]), results[s].best_val_rmse, results[s].network.nodes(),
                            results[s].setup_seconds + results[s].seconds);
  }
  const std::string event = fmt::format("widths {} chosen on the validation rows (RMSE {:.6g}){}{}",
                                        widths_text(sets[best]), result.best_val_rmse,
                                        compared.empty() ? "" : " over", compared);
  spdlog::info("{}", event);
  result.events.push_back(event);
  if (options.on_iteration)
    for (const IterationRecord& rec : records[best]) options.on_iteration(rec);
  return result;
}

}  // namespace detail
}  // namespace rbf::model
