// The trainer's progress, saved in checkpoints so that `rbfnet train --resume` can continue.
//
// A checkpoint is a model file (the best model so far, usable for prediction as it is)
// whose optional TRNS section holds this state as text. Resuming re-adds the chosen nodes
// in order on the CPU, which reproduces the interrupted run's state bit for bit, and
// continues with the counters below.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rbf::model {

struct TrainingState {
  std::size_t iteration = 0;            // iterations done (dependent candidates included)
  std::vector<std::size_t> chosen;      // candidate index of every node, in order
  std::vector<std::size_t> skipped;     // candidates found dependent
  std::size_t best_nodes = 0;           // node count of the best validation model
  std::size_t since_best = 0;           // iterations since it improved
  double best_val_rmse = -1, best_val_accuracy = -1;
  std::vector<double> train_rmse_at;    // training RMSE at 0..nodes nodes
  double elapsed_seconds = 0;           // growth time so far (for max_seconds)
  std::size_t candidates = 0;           // pool size, checked on resume
  std::string data_sha256;              // the training file's digest, checked on resume
  // After a refinement moved the nodes off their candidates: where they are now (standardized
  // units; nodes x d row-major, and nodes). Empty when no refinement was kept.
  std::vector<double> node_centers, node_widths;
  // When the best model is no prefix of the current nodes (it was made before a refinement):
  // its centers, widths, weights and bias (Network's fields, in that order) and training RMSE.
  std::size_t best_snapshot_nodes = 0;
  std::vector<double> best_snapshot;
  double best_snapshot_train_rmse = 0;
  std::size_t grown_since_refine = 0;   // nodes added since the last refinement (refine.every)
};

// Text form stored in the checkpoint; decode checks every field and throws rbf::InputError
// naming `name` when the text is not a valid state.
std::string encode_training_state(const TrainingState& state);
TrainingState decode_training_state(const std::string& text, const std::string& name);

}  // namespace rbf::model
