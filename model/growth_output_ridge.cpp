// trainer.output_ridge inside a training run: ridge on the kept model's output weights, its
// penalty chosen on the validation rows.
#include "model/growth_run.hpp"

#include <fmt/format.h>

#include <cmath>

#include "model/output_ridge.hpp"

namespace rbf::model::detail {

template <typename T>
void GrowthRun<T>::choose_output_ridge(TrainResult& result, bool classify) {
  const double configured = config_.trainer.output_ridge;
  const bool automatic = configured == kOutputRidgeAuto;
  Network& net = result.network;
  const std::size_t m = net.nodes();
  if (m == 0 || best_snapshot_ || (automatic && nv_ == 0) || configured == 0) return;
  // The saved network is the first m nodes of R (best_network() without a snapshot).
  const OutputRidge ridge(r_, theta_, k_, m);
  const double rows = static_cast<double>(n_);
  double chosen = 0;
  std::vector<double> weights = ridge.weights(0);
  ValidationScore before, after;
  try {
    if (nv_ > 0) before = after = score_validation(*backend_, p_, weights, m, classify, scratch_);
    if (automatic) {
      for (double lambda : output_ridge_grid()) {
        if (lambda == 0) continue;
        std::vector<double> w = ridge.weights(lambda * rows);
        const ValidationScore v = score_validation(*backend_, p_, w, m, classify, scratch_);
        if (v.rmse < after.rmse) {  // strictly better: ties keep the smaller penalty
          after = v;
          chosen = lambda;
          weights = std::move(w);
        }
      }
      if (chosen == 0) {
        spdlog::debug("output ridge: no penalty beats least squares on validation");
        return;
      }
    } else {
      chosen = configured;
      weights = ridge.weights(chosen * rows);
      if (nv_ > 0) after = score_validation(*backend_, p_, weights, m, classify, scratch_);
    }
  } catch (const DeviceError& e) {
    // The model as grown is complete and valid; a device failing now costs only the penalty.
    result.events.push_back(std::string("output ridge skipped: ") + e.what() + "; least-squares weights kept");
    spdlog::warn("{}", result.events.back());
    return;
  }
  // Training error of the penalized weights: the least-squares residual plus what the
  // penalty gives up, ||Theta - R w||^2 over the model's m + 1 rows.
  double extra = 0;
  for (std::size_t i = 0; i <= m; ++i)
    for (std::size_t j = 0; j < k_; ++j) {
      double fit = 0;
      for (std::size_t c = i; c <= m; ++c) fit += r_.at(i, c) * weights[c * k_ + j];
      extra += (theta_[i * k_ + j] - fit) * (theta_[i * k_ + j] - fit);
    }
  const double ls_sse = result.final_train_rmse * result.final_train_rmse * rows * static_cast<double>(k_);
  result.final_train_rmse = std::sqrt((ls_sse + extra) / (rows * static_cast<double>(k_)));
  net.bias.assign(weights.begin(), weights.begin() + static_cast<std::ptrdiff_t>(k_));
  net.weights.assign(weights.begin() + static_cast<std::ptrdiff_t>(k_), weights.end());
  result.output_ridge = chosen;
  std::string event = fmt::format("output ridge {:g}{}", chosen, automatic ? " (chosen on validation)" : "");
  if (nv_ > 0) {
    event += fmt::format(": validation RMSE {:.5g} -> {:.5g}", before.rmse, after.rmse);
    result.best_val_rmse = after.rmse;
    result.best_val_accuracy = after.accuracy;
  }
  spdlog::info("{}", event);
  result.events.push_back(event);
}

template void GrowthRun<float>::choose_output_ridge(TrainResult&, bool);
template void GrowthRun<double>::choose_output_ridge(TrainResult&, bool);

}  // namespace rbf::model::detail
