// The in-memory dataset: a contiguous feature matrix, targets, and their names.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace rbf::data {

enum class Task { regression, classification };

// A feature column read as text (categories): its cells in row order, unescaped; a missing
// cell is empty. Dataset::x holds NaN in its place until data/feature_encoding.hpp encodes it.
struct TextFeature {
  std::size_t feature = 0;          // index among the Dataset's features
  std::vector<std::string> cells;   // one per row
};

struct Dataset {
  std::string source;                      // file the data came from (for messages)
  std::size_t rows = 0;
  std::size_t features = 0;                // columns of x
  std::size_t targets = 0;                 // columns of y (1 for classification)
  std::vector<double> x;                   // row-major rows x features
  std::vector<double> y;                   // row-major rows x targets; class index for classification
  std::vector<std::string> feature_names;  // size features
  std::vector<std::string> target_names;   // size targets
  Task task = Task::regression;
  std::vector<std::string> class_names;    // classification only; y holds indices into it
  // Raw tabular data only (before data/feature_encoding.hpp encodes it): the text columns, and
  // NaN in x for the missing cells of numeric ones. Empty for numbers ready to train on.
  std::vector<TextFeature> text_features;
  // Per-row sample weights (finite, >= 0, not all 0): each row's share of the squared error
  // the fit minimizes and of every score. Empty: every row weighs 1.
  std::vector<double> weights;
  std::string weight_name;  // the column they came from ("" from Python)

  const double* row(std::size_t i) const { return x.data() + i * features; }
};

// A data set with `from`'s source, columns, names, task, classes and weight column, and no rows
// yet: the start of a subset of its rows (a fold, a part).
inline Dataset columns_of(const Dataset& from) {
  Dataset out;
  out.source = from.source;
  out.features = from.features;
  out.targets = from.targets;
  out.feature_names = from.feature_names;
  out.target_names = from.target_names;
  out.task = from.task;
  out.class_names = from.class_names;
  out.weight_name = from.weight_name;
  return out;
}

}  // namespace rbf::data
