// The trained RBF network: Gaussian nodes, output weights, scalers and everything to predict.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "data/feature_encoding.hpp"
#include "data/scaler.hpp"

namespace rbf::model {

struct Provenance {
  std::string rbfnet_version;
  std::string data_file;       // path as given at training time
  std::string data_sha256;     // hex digest of the training file's bytes (empty if unknown)
  std::string created_utc;     // ISO 8601
  std::string config_yaml;     // the effective configuration
  std::string backend;         // backend(s) used
};

// Whether `name` is what a feature without a name is called at position `index`: x0, x1, ...
// (the Python package's arrays). Such names say nothing to match columns by.
inline bool generic_feature_name(const std::string& name, std::size_t index) {
  return name == "x" + std::to_string(index);
}

struct Network {
  data::Task task = data::Task::regression;
  std::size_t inputs = 0;   // d
  std::size_t outputs = 0;  // k: targets, or classes for classification
  std::vector<std::string> feature_names;  // d
  std::vector<std::string> target_names;   // regression: k; classification: 1
  std::vector<std::string> class_names;    // classification: k
  // Raw tabular columns to the d features (one-hot categories, imputed values); empty when the
  // model was trained on numbers, its features then read as they are (data/feature_encoding.hpp).
  data::FeatureEncoding encoding;
  data::Standardizer x_scaler;             // d columns
  data::Standardizer y_scaler;             // regression: k columns; classification: identity

  // Nodes in standardized input space; weights map node activations to standardized outputs.
  // Standardized output = bias + x_std linear + sum_j weights_j phi_j(x_std).
  std::vector<double> centers;  // nodes x d, row-major
  std::vector<double> widths;   // nodes
  std::vector<double> weights;  // nodes x k, row-major
  std::vector<double> bias;     // k
  // trainer.linear_terms: standardized inputs to standardized outputs, added to the nodes'
  // sum. inputs x outputs, row-major; empty for a model without linear terms.
  std::vector<double> linear;
  // Classification: probabilities are softmax(proba_scale x class scores), the scale fitted on
  // held-out rows (model/probability_scale.cpp); 0 in files from before it: clipped scores.
  double proba_scale = 0.0;

  // A partitioned model (trainer.partitions, model/partitions.hpp): the sub-models, each a
  // whole network over this network's features, and the partition in this network's
  // standardized inputs (x_scaler). A prediction blends the parts' outputs; this network's own
  // nodes, bias and linear terms are then empty and y_scaler the identity.
  std::vector<Network> parts;
  std::vector<double> part_centres;  // parts x inputs
  double part_width = 0;             // the blend weights' width
  std::size_t part_blend = 0;        // the nearest parts a prediction blends

  Provenance provenance;

  // Non-empty only in checkpoints: the trainer's progress (model/training_state.hpp), kept
  // in an optional section that predicting ignores.
  std::string training_state;

  std::size_t nodes() const { return widths.size(); }
  // Every Gaussian the model evaluates: its own, or all its parts'.
  std::size_t total_nodes() const {
    std::size_t total = nodes();
    for (const Network& part : parts) total += part.total_nodes();
    return total;
  }
  // The columns a prediction reads: the raw tabular columns of the encoding, or the features
  // of a model trained on numbers.
  std::vector<std::string> input_columns() const {
    return encoding.empty() ? feature_names : encoding.raw_names();
  }

  // Raw outputs in original target units (regression) or class scores (classification)
  // for `rows` raw input rows (row-major rows x d). out: rows x k.
  void predict(const double* x, std::size_t rows, std::vector<double>& out) const;
  // Class index per row (classification): argmax of predict().
  std::vector<std::size_t> predict_classes(const double* x, std::size_t rows) const;
};

}  // namespace rbf::model
