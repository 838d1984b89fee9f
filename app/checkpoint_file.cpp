// Checkpoint files are model files with a training state; this reads their two halves.
#include "app/checkpoint_file.hpp"

#include "data/errors.hpp"
#include "model/config_yaml.hpp"
#include "model/model_file.hpp"

namespace rbf::app {

namespace {

model::Network load_checkpoint(const std::string& path) {
  model::Network net = model::load_network(path);
  if (net.training_state.empty())
    throw InputError(path + ": this is a finished model, not a checkpoint (it holds no training state to resume)");
  return net;
}

}  // namespace

model::Config checkpoint_config(const std::string& path) {
  const model::Network net = load_checkpoint(path);
  return model::parse_config(net.provenance.config_yaml, path + " (its saved configuration)");
}

Checkpoint read_checkpoint(const std::string& path) {
  const model::Network net = load_checkpoint(path);
  Checkpoint checkpoint;
  checkpoint.config = model::parse_config(net.provenance.config_yaml, path + " (its saved configuration)");
  checkpoint.state = model::decode_training_state(net.training_state, path);
  checkpoint.data_file = net.provenance.data_file;
  return checkpoint;
}

std::string checkpoint_path(const model::Config& config) {
  return config.output.checkpoint.empty() ? config.output.model + ".ckpt" : config.output.checkpoint;
}

}  // namespace rbf::app
