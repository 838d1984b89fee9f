// Reading checkpoints for `rbfnet train --resume`: the run's configuration and its progress.
#pragma once

#include <string>

#include "model/config.hpp"
#include "model/network.hpp"
#include "model/training_state.hpp"

namespace rbf::app {

// The configuration the checkpointed run used. Throws rbf::InputError when `path` is not a
// readable checkpoint (a plain model file has no training state).
model::Config checkpoint_config(const std::string& path);

// Everything a resume needs from one read of the checkpoint.
struct Checkpoint {
  model::Config config;        // the configuration the run used
  model::TrainingState state;  // its progress, checked
  std::string data_file;       // the data it was trained on, as named then
  // Its model: the resumed run standardizes with this model's scalers, the space its nodes are
  // in (a run continued from another model, --init-model, has that model's, not its data's).
  model::Network network;
};
Checkpoint read_checkpoint(const std::string& path);

// Where checkpoints of a run with this config go: output.checkpoint, or MODEL.ckpt.
std::string checkpoint_path(const model::Config& config);

}  // namespace rbf::app
