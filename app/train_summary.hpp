// The summary of a finished training run: lines on standard output for people, and the same
// facts as one JSON object (--metrics-json) for scripts.
#pragma once

#include <string>

#include "model/config.hpp"
#include "model/trainer.hpp"

namespace rbf::app {

void print_train_summary(const model::TrainResult& result, const model::Config& config);

std::string train_summary_json(const model::TrainResult& result, const model::Config& config);

}  // namespace rbf::app
