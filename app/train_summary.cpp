// Training summary text and JSON. Both report the training and validation errors of the kept
// network in the same units (target units), so the two can be compared directly.
#include "app/train_summary.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "app/json_writer.hpp"
#include "data/text.hpp"
#include "model/train_result_fields.hpp"

namespace rbf::app {

namespace {

// %g without the exponent for the width factors of everyday configs (0.5, 1, 2).
std::string format_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

bool classifies(const model::TrainResult& result) {
  return result.network.task == data::Task::classification;
}

std::size_t nodes_grown(const model::TrainResult& result) {
  return result.iterations.empty() ? 0 : result.iterations.back().nodes;
}

// `weights`: the sample weights' column ("" unweighted), whose weights every score counts.
void print_scores(const char* label, const model::FitScores& s, bool classify, const std::string& weights) {
  const std::string weighted = weights.empty() ? "" : ", weighted by " + weights;
  if (classify) {
    std::printf("  %-11s accuracy %.4f, RMSE %.6g (class scores against one-hot targets), %zu rows%s\n", label,
                s.accuracy, s.rmse, s.rows, weighted.c_str());
  } else {
    // An R2 that rounds to zero prints as 0.0000, not -0.0000.
    const double r2 = std::fabs(s.r2) < 0.5e-4 ? 0.0 : s.r2;
    std::printf("  %-11s RMSE %.6g (target units), R2 %.4f, %zu rows%s\n", label, s.rmse, r2, s.rows,
                weighted.c_str());
  }
}

// model::visit_train_result's fields as JSON members of the object being written.
struct JsonFields {
  JsonWriter& json;
  template <typename V>
  void field(const char* name, const V& value) {
    json.key(name).value(value);
  }
  void field(const char* name, const std::vector<std::string>& items) { json.key(name).strings(items); }
  void field(const char* name, const std::vector<double>& items) { json.key(name).numbers(items); }
  void field(const char* name, const std::vector<std::vector<double>>& rows) {
    json.key(name).begin_array();
    for (const std::vector<double>& row : rows) json.numbers(row);
    json.end_array();
  }
  void none(const char* name) { json.key(name).null(); }
  template <typename Fn>
  void object(const char* name, Fn members) {
    json.key(name).begin_object();
    members();
    json.end_object();
  }
};

}  // namespace

// A partitioned model's parts, one line each.
void print_parts(const model::TrainResult& result) {
  for (std::size_t p = 0; p < result.parts.size(); ++p) {
    const model::PartReport& part = result.parts[p];
    const std::string validation = part.val_rmse >= 0 ? ", validation RMSE " + format_number(part.val_rmse) : "";
    std::printf("  part %zu: %zu rows, %zu nodes, %.3f s%s, stopped: %s\n", p + 1, part.rows, part.nodes, part.seconds,
                validation.c_str(), part.stop_reason.c_str());
  }
}

void print_train_summary(const model::TrainResult& result, const model::Config& config) {
  const model::Network& net = result.network;
  if (!result.parts.empty()) {
    std::printf("grew %zu part%s, %zu nodes in all, in %zu iterations, %.3f s on %s\n", result.parts.size(),
                result.parts.size() == 1 ? "" : "s", net.total_nodes(), result.iterations.size(), result.seconds,
                net.provenance.backend.c_str());
    print_parts(result);
  } else {
    std::printf("grew %zu nodes in %zu iterations, %.3f s on %s (setup %.3f s), stopped: %s\n", nodes_grown(result),
                result.iterations.size(), result.seconds, net.provenance.backend.c_str(), result.setup_seconds,
                result.stop_reason.c_str());
  }
  // That growth is one of several when a model was chosen among growths: say what all cost.
  if (result.cross_validation.folds > 0 || result.total_seconds > 1.5 * (result.seconds + result.setup_seconds) + 0.01)
    std::printf("  training took %.3f s in all%s\n", result.total_seconds,
                result.cross_validation.folds > 0 ? ": the folds, the model on every row and its scoring"
                                                  : ": every growth the choice of the model made");
  const model::RefitReport& refit = result.refit;
  if (refit.done) {
    std::printf("  kept %zu nodes (best on validation), then grew them again on all %zu rows in %.3f s (refit)\n",
                refit.nodes, refit.rows, refit.seconds);
    if (refit.stop_reason != "reached max_nodes") std::printf("  refit stopped: %s\n", refit.stop_reason.c_str());
  } else if (result.cross_validation.folds > 0) {
    const model::CrossValidationReport& cv = result.cross_validation;
    std::string widths;
    for (double w : cv.widths) widths += (widths.empty() ? "" : ", ") + format_number(w);
    const std::string accuracy = cv.accuracy >= 0 ? ", accuracy " + format_number(cv.accuracy) : "";
    // Widths mean nothing without Gaussians: say what the model is instead.
    std::string kept = std::to_string(cv.nodes) + " nodes with widths " + widths + " x sigma0";
    if (cv.nodes == 0)
      kept = net.linear.empty() ? "0 nodes (the bias only)" : "0 nodes (linear terms and bias only)";
    std::printf("  kept %s, chosen by %zu-fold cross-validation in %.3f s (mean validation RMSE %.6g%s), then grown "
                "on all %zu rows\n",
                kept.c_str(), cv.folds, cv.seconds, cv.rmse, accuracy.c_str(), result.train_rows);
    if (cv.averaged_models > 0)
      std::printf("  averaged with %zu models grown on the folds' training rows: %zu Gaussians in the model (%.3f s; "
                  "--no-average-folds keeps one)\n",
                  cv.averaged_models - 1, net.nodes(), cv.averaging_seconds);
    if (cv.lowest_nodes != cv.nodes)
      std::printf("  %zu node%s scored lowest (mean validation RMSE %.6g), within one standard error of no "
                  "Gaussians: kept the simpler model\n",
                  cv.lowest_nodes, cv.lowest_nodes == 1 ? "" : "s", cv.lowest_rmse);
  } else if (result.parts.empty()) {
    std::printf("  kept %zu nodes%s\n", net.nodes(), result.validation_rows > 0 ? " (best on validation)" : "");
    if (result.init_nodes > 0)
      std::printf("  continued: the first %zu node%s came from --init-model; the weights are solved on these rows\n",
                  result.init_nodes, result.init_nodes == 1 ? "" : "s");
  }
  for (const std::string& event : result.events) std::printf("  event: %s\n", event.c_str());
  if (result.parts.empty())
    std::printf("  candidates: %zu, sigma0 %.4g; Phi_C %s: %s\n", result.candidates, result.sigma0,
                result.candidates_stored ? "stored" : "computed on every pass", result.candidate_storage_reason.c_str());
  if (!result.basis_storage.empty()) std::printf("  basis Q: %s\n", result.basis_storage.c_str());
  if (result.proba_rows > 0) {
    const std::string& on = result.proba_fitted_on;
    const std::string rows = on == "all" ? "all " + std::to_string(result.proba_rows) + " rows (cross-validated)"
                                         : "the " + std::to_string(result.proba_rows) + " " + on + " rows";
    std::printf("  probabilities: softmax of %.4g x the class scores, fitted on %s\n", net.proba_scale, rows.c_str());
  }
  if (result.linear_ridge >= 0)
    std::printf("  linear terms: %zu features, ridge %g (chosen by generalized cross-validation)\n", net.inputs,
                result.linear_ridge);
  const std::string weights = config.data.weight.empty() ? "" : "column '" + data::printable(config.data.weight) + "'";
  print_scores(refit.done || result.cross_validation.folds > 0 ? "all rows:" : "training:", result.train_scores,
               classifies(result), weights);
  if (result.validation_scores.rows > 0) {
    print_scores("validation:", result.validation_scores, classifies(result), weights);
    if (refit.done) std::printf("              (validation: the model before the refit, which chose the node count)\n");
  }
  if (!config.logging.iteration_log.empty())
    std::printf("  iteration log: %s\n", config.logging.iteration_log.c_str());
  std::printf("  model: %s\n", config.output.model.c_str());
}

std::string train_summary_json(const model::TrainResult& result, const model::Config& config) {
  JsonWriter json;
  json.begin_object();
  JsonFields fields{json};
  model::visit_train_result(result, fields);
  json.key("model").value(config.output.model);
  json.key("iteration_log").value(config.logging.iteration_log);
  json.end_object();
  return json.str();
}

}  // namespace rbf::app
