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

// The configuration the checkpoint's run used. Checkpoints written before data.stratify
// existed split their validation rows at random; resuming them must keep that split.
model::Config saved_config(const model::Network& net, const std::string& path) {
  model::Config config = model::parse_config(net.provenance.config_yaml, path + " (its saved configuration)");
  if (net.provenance.config_yaml.find("\n  stratify:") == std::string::npos) config.data.stratify = false;
  return config;
}

}  // namespace

model::Config checkpoint_config(const std::string& path) { return saved_config(load_checkpoint(path), path); }

Checkpoint read_checkpoint(const std::string& path) {
  const model::Network net = load_checkpoint(path);
  Checkpoint checkpoint;
  checkpoint.config = saved_config(net, path);
  checkpoint.state = model::decode_training_state(net.training_state, path);
  checkpoint.data_file = net.provenance.data_file;
  checkpoint.network = net;
  return checkpoint;
}

std::string checkpoint_path(const model::Config& config) {
  return config.output.checkpoint.empty() ? config.output.model + ".ckpt" : config.output.checkpoint;
}

}  // namespace rbf::app
