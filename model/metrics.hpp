// Evaluation metrics: RMSE per target and pooled, MAE, R^2; predicted classes, accuracy, macro-F1, confusion.
#pragma once

#include <cstddef>
#include <vector>

namespace rbf::model {

struct RegressionMetrics {
  std::vector<double> rmse, mae, r2;  // one per target
};

// pred and truth are row-major rows x k. With `weights` (rows values, not all 0) every sum
// and mean weighs row i by weights[i], as scikit-learn's sample_weight does.
RegressionMetrics regression_metrics(const double* pred, const double* truth, std::size_t rows, std::size_t k,
                                     const double* weights = nullptr);

// One RMSE over all `count` values together, e.g. rows x k outputs pooled (the trainer's
// validation RMSE, on one-hot targets for classification); 0 when count is 0.
double pooled_rmse(const double* pred, const double* truth, std::size_t count);
// The same over rows x k values with row i weighted by weights[i] (empty: unweighted).
double pooled_rmse(const double* pred, const double* truth, std::size_t rows, std::size_t k,
                   const std::vector<double>& weights);

// One non-zero cell of a confusion matrix: `count` rows of class `truth` predicted as `predicted`.
struct ConfusionCell {
  std::size_t truth = 0, predicted = 0, count = 0;
};

struct ClassificationMetrics {
  double accuracy = 0;
  double macro_f1 = 0;  // mean F1 over classes that occur in truth or predictions
  // The confusion matrix's non-zero cells, by true class, then predicted class: at most one per
  // row, so 20,000 classes cost what their rows cost, not 400 million cells.
  std::vector<ConfusionCell> confusion;
};

// The dense classes x classes matrix [true][predicted] of `cells`, for reports of few classes.
std::vector<std::vector<std::size_t>> dense_confusion(const std::vector<ConfusionCell>& cells, std::size_t classes);

// The share of rows whose predicted class is the true one (0 without rows). Linear in the
// rows whatever the class count: the trainer scores validation every iteration, and a
// confusion matrix of 20,000 classes would be 3.2 GB.
double accuracy(const std::vector<std::size_t>& predicted, const std::vector<std::size_t>& truth);
// The weighted share (weights empty: as above).
double accuracy(const std::vector<std::size_t>& predicted, const std::vector<std::size_t>& truth,
                const std::vector<double>& weights);

// Accuracy, macro-F1 and the confusion matrix's non-zero cells (for reports); time and memory
// grow with rows + classes. With `weights` accuracy and F1 weigh each row (the confusion
// cells still count rows).
ClassificationMetrics classification_metrics(const std::vector<std::size_t>& predicted,
                                             const std::vector<std::size_t>& truth, std::size_t classes,
                                             const std::vector<double>& weights = {});

// The class of each row of `scores` (row-major rows x k): the index of its largest score, the
// first one on a tie.
std::vector<std::size_t> predicted_classes(const double* scores, std::size_t rows, std::size_t k);

// Class probabilities from `scores` (row-major rows x k), as `rbfnet predict --proba` and the
// Python package's predict_proba give them (model/probability_scale.cpp says why):
// - scale > 0 (models from this version on): the softmax of scale x the scores;
// - scale 0 (older model files): the scores clipped at 0 and divided by their sum, a row whose
//   scores are all <= 0 getting everything for its predicted class.
// Either way each probability is then lifted to at least kProbabilityFloor / (1 + k kFloor), so
// none is exactly 0 or 1 (a log loss stays finite), and the largest is always the predicted
// class's.
std::vector<double> class_probabilities(const double* scores, std::size_t rows, std::size_t k, double scale);
inline constexpr double kProbabilityFloor = 1e-12;

}  // namespace rbf::model
