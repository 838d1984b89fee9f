// The in-memory dataset: a contiguous feature matrix, targets, and their names.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace rbf::data {

enum class Task { regression, classification };

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

  const double* row(std::size_t i) const { return x.data() + i * features; }
};

}  // namespace rbf::data
