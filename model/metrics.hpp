// Evaluation metrics: RMSE, MAE and R^2 per target; accuracy, macro-F1 and confusion matrix.
#pragma once

#include <cstddef>
#include <vector>

namespace rbf::model {

struct RegressionMetrics {
  std::vector<double> rmse, mae, r2;  // one per target
};

// pred and truth are row-major rows x k.
RegressionMetrics regression_metrics(const double* pred, const double* truth, std::size_t rows, std::size_t k);

struct ClassificationMetrics {
  double accuracy = 0;
  double macro_f1 = 0;  // mean F1 over classes that occur in truth or predictions
  std::vector<std::vector<std::size_t>> confusion;  // [true][predicted]
};

ClassificationMetrics classification_metrics(const std::vector<std::size_t>& predicted,
                                             const std::vector<std::size_t>& truth, std::size_t classes);

}  // namespace rbf::model
