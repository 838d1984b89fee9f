// Partitioned training (trainer.partitions > 1): one sub-model per region of the inputs, grown
// by the ordinary trainer, blended into one model (model/partitions.hpp says how).
#pragma once

#include <functional>

#include "data/dataset.hpp"
#include "model/config.hpp"
#include "model/trainer.hpp"

namespace rbf::model {

// Trains one part: the trainer on numbers (train_numbers in model/trainer.cpp).
using PartTrainer = std::function<TrainResult(const data::Dataset&, const Config&, const TrainOptions&)>;

// Holds out the run's validation rows (data.validation or the validation file) from every part,
// splits the training rows into config.trainer.partitions regions (fewer where a region would
// be tiny) and grows a sub-model on each region plus its overlap margin with `train_part`,
// which holds out validation rows within the part for its own early stopping. CPU parts grow
// several at once with the threads split between them; GPU parts several at once on each
// device given (one network each); auto parts one after another.
// The result's network blends the parts; its iterations are every part's, in part order, each
// with its part; parts lists each part's rows, nodes and stop. The caller scores it.
TrainResult train_partitioned(const data::Dataset& dataset, const Config& config, const TrainOptions& options,
                              const PartTrainer& train_part);

}  // namespace rbf::model
