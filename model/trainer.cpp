// The incremental OLS trainer's entry points and the base-width heuristic; a run itself is
// model/growth_run.hpp.
#include "model/trainer.hpp"

#include <algorithm>
#include <cmath>

#include "data/errors.hpp"
#include "data/split.hpp"
#include "model/growth_run.hpp"
#include "model/training_data.hpp"
#include "model/training_memory.hpp"

namespace rbf::model {

using detail::GrowthRun;

TrainResult train(const data::Dataset& dataset, const Config& config, const TrainOptions& options) {
  if (dataset.features == 0) throw InputError(dataset.source + ": no feature columns to train on");
  check_training_memory(dataset, config);  // before the first large allocation, not after it
  TrainResult result = config.trainer.precision == Precision::float64
                           ? GrowthRun<double>(dataset, config, options).run()
                           : GrowthRun<float>(dataset, config, options).run();
  if (!result.interrupted) {
    // The run's own split, scored by the saved network.
    const data::Split split = detail::validation_split(dataset, config, options.validation_from);
    result.train_scores = score_rows(result.network, dataset, split.train);
    result.validation_scores = score_rows(result.network, dataset, split.validation);
  }
  return result;
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
