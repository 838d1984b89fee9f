// Training summary text and JSON. Both report the training and validation errors of the kept
// network in the same units (target units), so the two can be compared directly.
#include "app/train_summary.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "app/json_writer.hpp"

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

void print_scores(const char* label, const model::FitScores& s, bool classify) {
  if (classify) {
    std::printf("  %-11s accuracy %.4f, RMSE %.6g (class scores against one-hot targets), %zu rows\n", label,
                s.accuracy, s.rmse, s.rows);
  } else {
    // An R2 that rounds to zero prints as 0.0000, not -0.0000.
    const double r2 = std::fabs(s.r2) < 0.5e-4 ? 0.0 : s.r2;
    std::printf("  %-11s RMSE %.6g (target units), R2 %.4f, %zu rows\n", label, s.rmse, r2, s.rows);
  }
}

void scores_json(JsonWriter& json, const char* name, const model::FitScores& s, bool classify) {
  json.key(name);
  if (s.rows == 0) {
    json.null();
    return;
  }
  json.begin_object().key("rows").value(s.rows).key("rmse").value(s.rmse);
  if (classify) {
    json.key("accuracy").value(s.accuracy);
  } else {
    json.key("r2").value(s.r2);
  }
  json.end_object();
}

}  // namespace

void print_train_summary(const model::TrainResult& result, const model::Config& config) {
  const model::Network& net = result.network;
  std::printf("grew %zu nodes in %zu iterations, %.3f s on %s (setup %.3f s), stopped: %s\n", nodes_grown(result),
              result.iterations.size(), result.seconds, net.provenance.backend.c_str(), result.setup_seconds,
              result.stop_reason.c_str());
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
  } else {
    std::printf("  kept %zu nodes%s\n", net.nodes(), result.validation_rows > 0 ? " (best on validation)" : "");
  }
  for (const std::string& event : result.events) std::printf("  event: %s\n", event.c_str());
  std::printf("  candidates: %zu (%s), sigma0 %.4g\n", result.candidates,
              result.candidates_stored ? "stored" : "evaluated on the fly", result.sigma0);
  if (result.linear_ridge >= 0)
    std::printf("  linear terms: %zu features, ridge %g (chosen by generalized cross-validation)\n", net.inputs,
                result.linear_ridge);
  print_scores(refit.done || result.cross_validation.folds > 0 ? "all rows:" : "training:", result.train_scores,
               classifies(result));
  if (result.validation_scores.rows > 0) {
    print_scores("validation:", result.validation_scores, classifies(result));
    if (refit.done) std::printf("              (validation: the model before the refit, which chose the node count)\n");
  }
  if (!config.logging.iteration_log.empty())
    std::printf("  iteration log: %s\n", config.logging.iteration_log.c_str());
  std::printf("  model: %s\n", config.output.model.c_str());
}

std::string train_summary_json(const model::TrainResult& result, const model::Config& config) {
  const model::Network& net = result.network;
  JsonWriter json;
  json.begin_object();
  json.key("task").value(classifies(result) ? "classification" : "regression");
  json.key("nodes").value(net.nodes()).key("nodes_grown").value(nodes_grown(result));
  json.key("iterations").value(result.iterations.size());
  json.key("stop_reason").value(result.stop_reason);
  json.key("backend").value(net.provenance.backend);
  json.key("seconds").value(result.seconds).key("setup_seconds").value(result.setup_seconds);
  json.key("refine_seconds").value(result.refine_seconds);
  json.key("candidates").value(result.candidates).key("sigma0").value(result.sigma0);
  json.key("output_ridge").value(result.output_ridge);  // the saved weights' penalty; 0 = least squares
  // The linear terms' penalty (relative to the training rows), or null without linear terms.
  json.key("linear_ridge");
  if (result.linear_ridge >= 0) json.value(result.linear_ridge);
  else json.null();
  json.key("events").strings(result.events);
  // RMSE in target units for regression; for classification, of the class scores.
  scores_json(json, "training", result.train_scores, classifies(result));
  scores_json(json, "validation", result.validation_scores, classifies(result));
  // After a refit, "training" scores the refit network on every row and "validation" the
  // early-stopped network that chose the node count.
  json.key("refit");
  if (result.refit.done) {
    json.begin_object().key("nodes").value(result.refit.nodes).key("rows").value(result.refit.rows);
    json.key("seconds").value(result.refit.seconds).key("stop_reason").value(result.refit.stop_reason);
    json.end_object();
  } else {
    json.null();
  }
  json.key("cross_validation");
  if (result.cross_validation.folds > 0) {
    const model::CrossValidationReport& cv = result.cross_validation;
    json.begin_object().key("folds").value(cv.folds).key("nodes").value(cv.nodes);
    json.key("widths").numbers(cv.widths).key("rmse").value(cv.rmse);
    json.key("lowest_nodes").value(cv.lowest_nodes).key("lowest_rmse").value(cv.lowest_rmse);
    json.key("accuracy");
    if (cv.accuracy >= 0) {
      json.value(cv.accuracy);
    } else {
      json.null();
    }
    json.key("output_ridge").value(cv.output_ridge).key("seconds").value(cv.seconds);
    json.key("averaged_models").value(cv.averaged_models).key("averaging_seconds").value(cv.averaging_seconds);
    json.end_object();
  } else {
    json.null();
  }
  json.key("model").value(config.output.model);
  json.key("iteration_log").value(config.logging.iteration_log);
  json.end_object();
  return json.str();
}

}  // namespace rbf::app
