// How well a trained network fits a set of rows, in the units a user reads: target units for
// RMSE, R² for regression, accuracy for classification.
#pragma once

#include <cstddef>
#include <vector>

#include "data/dataset.hpp"
#include "model/network.hpp"

namespace rbf::model {

struct FitScores {
  std::size_t rows = 0;  // 0: no rows were scored and every figure is -1
  // Regression: pooled over the targets, in target units. Classification: of the class scores
  // against one-hot targets (the trainer's validation RMSE).
  double rmse = -1;
  double r2 = -1;        // regression: mean R² over the targets
  double accuracy = -1;  // classification
};

// Scores `net` on the rows `rows` of `ds`, the dataset it was trained on.
FitScores score_rows(const Network& net, const data::Dataset& ds, const std::vector<std::size_t>& rows);

}  // namespace rbf::model
