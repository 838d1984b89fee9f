// The one list of what a training reports about itself: every summary field of a TrainResult,
// in order, walked by the CLI's JSON summary (app/train_summary.cpp) and by Python's
// fit_summary_ (python/bindings/train_binding.cpp), so that the two cannot drift apart.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/trainer.hpp"

namespace rbf::model {

// A visitor has
//   void field(const char* name, const V& value) for std::string, std::size_t, double, bool,
//        std::vector<std::string>, std::vector<double> and std::vector<std::vector<double>>;
//   void none(const char* name): a figure that does not exist for this run (JSON null, Python None);
//   void object(const char* name, Fn members): a nested object whose fields members() visits.

namespace result_fields_detail {

template <typename Visitor>
void optional_number(Visitor& v, const char* name, bool present, double value) {
  if (present) {
    v.field(name, value);
  } else {
    v.none(name);
  }
}

template <typename Visitor>
void scores(Visitor& v, const char* name, const FitScores& s, bool classify) {
  if (s.rows == 0) {
    v.none(name);
    return;
  }
  v.object(name, [&] {
    v.field("rows", s.rows);
    v.field("rmse", s.rmse);
    if (classify) {
      v.field("accuracy", s.accuracy);
    } else {
      v.field("r2", s.r2);
    }
  });
}

template <typename Visitor>
void cross_validation(Visitor& v, const CrossValidationReport& cv) {
  if (cv.folds == 0) {
    v.none("cross_validation");
    return;
  }
  v.object("cross_validation", [&] {
    v.field("folds", cv.folds);
    v.field("nodes", cv.nodes);
    v.field("widths", cv.widths);
    v.field("rmse", cv.rmse);
    v.field("lowest_nodes", cv.lowest_nodes);
    v.field("lowest_rmse", cv.lowest_rmse);
    optional_number(v, "accuracy", cv.accuracy >= 0, cv.accuracy);
    v.field("output_ridge", cv.output_ridge);
    v.field("seconds", cv.seconds);
    v.field("averaged_models", cv.averaged_models);
    v.field("averaging_seconds", cv.averaging_seconds);
    v.field("width_sets", cv.width_sets);
  });
}

}  // namespace result_fields_detail

// Visits every summary field of `r`. RMSE is in target units (for classification, of the class
// scores) except train_rmse, the standardized figure stopping.goal compares. After a refit,
// "training" scores the refit network on every row and "validation" the early-stopped network
// that chose the node count.
template <typename Visitor>
void visit_train_result(const TrainResult& r, Visitor& v) {
  using namespace result_fields_detail;
  const bool classify = r.network.task == data::Task::classification;
  v.field("task", std::string(classify ? "classification" : "regression"));
  v.field("nodes", r.network.total_nodes());
  v.field("nodes_grown", r.iterations.empty() ? std::size_t{0} : r.iterations.back().nodes);
  v.field("iterations", r.iterations.size());
  v.field("stop_reason", r.stop_reason);
  v.field("backend", r.network.provenance.backend);
  v.field("seconds", r.seconds);
  v.field("setup_seconds", r.setup_seconds);
  v.field("total_seconds", r.total_seconds);
  v.field("refine_seconds", r.refine_seconds);
  v.field("train_rows", r.train_rows);
  v.field("validation_rows", r.validation_rows);
  v.field("candidates", r.candidates);
  v.field("candidates_stored", r.candidates_stored);
  v.field("candidate_storage_reason", r.candidate_storage_reason);
  v.field("basis_storage", r.basis_storage);
  v.field("proba_scale", r.network.proba_scale);
  v.field("proba_rows", r.proba_rows);
  v.field("proba_fitted_on", r.proba_fitted_on);
  v.field("init_nodes", r.init_nodes);
  v.field("sigma0", r.sigma0);
  v.field("output_ridge", r.output_ridge);  // the saved weights' penalty; 0 = least squares
  optional_number(v, "linear_ridge", r.linear_ridge >= 0, r.linear_ridge);
  v.field("train_rmse", r.final_train_rmse);
  optional_number(v, "val_rmse", r.best_val_rmse >= 0, r.best_val_rmse);
  optional_number(v, "val_accuracy", r.best_val_accuracy >= 0, r.best_val_accuracy);
  v.field("events", r.events);
  scores(v, "training", r.train_scores, classify);
  scores(v, "validation", r.validation_scores, classify);
  if (r.refit.done) {
    v.object("refit", [&] {
      v.field("nodes", r.refit.nodes);
      v.field("rows", r.refit.rows);
      v.field("seconds", r.refit.seconds);
      v.field("stop_reason", r.refit.stop_reason);
    });
  } else {
    v.none("refit");
  }
  cross_validation(v, r.cross_validation);
  // A partitioned model's parts: [training rows, nodes, seconds, validation RMSE (-1: none)] each.
  std::vector<std::vector<double>> parts;
  for (const PartReport& p : r.parts)
    parts.push_back({static_cast<double>(p.rows), static_cast<double>(p.nodes), p.seconds, p.val_rmse});
  v.field("parts", parts);
}

}  // namespace rbf::model
