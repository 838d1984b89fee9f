// `rbfnet evaluate`: score a saved model on a labelled CSV file.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "app/commands.hpp"
#include "app/file_checks.hpp"
#include "app/json_writer.hpp"
#include "app/raw_columns.hpp"
#include "data/csv_reader.hpp"
#include "data/errors.hpp"
#include "data/input_file.hpp"
#include "data/text.hpp"
#include "model/metrics.hpp"
#include "model/model_file.hpp"

namespace rbf::app {

namespace {

// Which model output each --target column is, matched by name (a column given by index is
// matched by its header name): order does not matter, a column the model does not predict
// is an error.
std::vector<std::size_t> model_outputs(const std::vector<std::string>& given, const std::vector<std::string>& model,
                                       const std::string& file) {
  std::vector<std::size_t> output;
  for (const std::string& name : given) {
    const auto it = std::find(model.begin(), model.end(), name);
    if (it == model.end()) {
      std::string known;
      for (const std::string& m : model) known += (known.empty() ? "'" : ", '") + m + "'";
      throw InputError(file + ": --target column '" + name + "' is not a target of the model, which predicts " + known);
    }
    const std::size_t j = static_cast<std::size_t>(it - model.begin());
    if (std::find(output.begin(), output.end(), j) != output.end())
      throw InputError(file + ": --target names column '" + name + "' twice");
    output.push_back(j);
  }
  return output;
}

// Up to this many classes the confusion matrix is printed whole (text) or as a matrix (JSON).
constexpr std::size_t kDenseConfusionClasses = 100;
constexpr std::size_t kConfusionsListed = 20;

// Text report of many classes: the most frequent confusions instead of a matrix nobody reads.
void print_largest_confusions(std::vector<model::ConfusionCell> cells, const std::vector<std::string>& names) {
  cells.erase(std::remove_if(cells.begin(), cells.end(),
                             [](const model::ConfusionCell& cell) { return cell.truth == cell.predicted; }),
              cells.end());
  std::stable_sort(cells.begin(), cells.end(), [](const model::ConfusionCell& a, const model::ConfusionCell& b) {
    return a.count > b.count;
  });
  const std::size_t shown = std::min(cells.size(), kConfusionsListed);
  std::printf("  confusion matrix: %zu classes, too many to print (--json lists its non-zero cells); ", names.size());
  std::printf("%zu distinct confusions, the %zu most frequent (true -> predicted: rows):\n", cells.size(), shown);
  for (std::size_t i = 0; i < shown; ++i)
    std::printf("    %s -> %s: %zu\n", data::printable(names[cells[i].truth]).c_str(),
                data::printable(names[cells[i].predicted]).c_str(), cells[i].count);
}

// The text report's first line: the model, the data, and the weights every score counts.
void print_header(const EvaluateOptions& options, const model::Network& net, const data::Dataset& ds) {
  const std::string weighted = ds.weights.empty() ? "" : ", weighted by column '" + data::printable(ds.weight_name) + "'";
  std::printf("model %s: %zu nodes, %s; data %s: %zu rows%s\n", options.model.c_str(), net.total_nodes(),
              net.task == data::Task::classification ? "classification" : "regression", options.data.c_str(), ds.rows,
              weighted.c_str());
}

// Prints the JSON document when asked for (a failed write is reported by run_reporting_errors).
int finish(JsonWriter& json, bool print_json) {
  if (print_json) std::fputs(json.end_object().str().c_str(), stdout);
  return 0;
}

}  // namespace

int run_evaluate(const EvaluateOptions& options) {
  const model::Network net = model::load_network(options.model);
  const bool classify = net.task == data::Task::classification;
  const data::CsvOptions csv = model_csv_options(net, options.delimiter, options.skip_rows);
  data::ColumnSpec columns;
  columns.targets = options.target;
  columns.features = net.input_columns();
  columns.weight = options.weight;
  data::Dataset ds = data::parse_csv(data::read_input_file(input_path(options.data), "data file").view(),
                                     input_name(options.data), csv, columns,
                                     classify ? data::TaskHint::classification : data::TaskHint::regression);
  encode_for_model(net, ds);
  const std::vector<std::size_t> output = model_outputs(ds.target_names, net.target_names, options.data);
  JsonWriter json;
  json.begin_object();
  json.key("model").value(options.model).key("nodes").value(net.total_nodes());
  json.key("task").value(classify ? "classification" : "regression");
  json.key("data").value(options.data).key("rows").value(ds.rows);
  if (!ds.weights.empty()) json.key("weight").value(ds.weight_name);
  if (!options.json) print_header(options, net, ds);

  if (!classify) {
    const std::vector<double> all = predict_rows(net, ds);
    // The model's output for each given column, in the order the columns were given.
    std::vector<double> pred(ds.rows * ds.targets);
    for (std::size_t i = 0; i < ds.rows; ++i)
      for (std::size_t j = 0; j < ds.targets; ++j) pred[i * ds.targets + j] = all[i * net.outputs + output[j]];
    const model::RegressionMetrics m = model::regression_metrics(pred.data(), ds.y.data(), ds.rows, ds.targets,
                                                                  ds.weights.empty() ? nullptr : ds.weights.data());
    json.key("targets").begin_array();
    for (std::size_t j = 0; j < ds.targets; ++j) {
      json.begin_object().key("name").value(ds.target_names[j]).key("rmse").value(m.rmse[j]);
      json.key("mae").value(m.mae[j]).key("r2").value(m.r2[j]).end_object();
      if (!options.json)
        std::printf("  %-16s RMSE %.6g  MAE %.6g  R2 %.6f\n", data::printable(ds.target_names[j]).c_str(), m.rmse[j], m.mae[j],
                    m.r2[j]);
    }
    json.end_array();
    return finish(json, options.json);
  }

  // The file's labels are matched to the model's classes by name.
  std::map<std::string, std::size_t> model_class;
  for (std::size_t c = 0; c < net.class_names.size(); ++c) model_class[net.class_names[c]] = c;
  std::vector<std::size_t> truth(ds.rows);
  for (std::size_t i = 0; i < ds.rows; ++i) {
    const std::string& label = ds.class_names[static_cast<std::size_t>(ds.y[i])];
    const auto it = model_class.find(label);
    if (it == model_class.end())
      throw InputError(options.data + ": class '" + label + "' in target column '" + ds.target_names[0] + "' (data row " +
                       std::to_string(i + 1) + ") is not one the model knows");
    truth[i] = it->second;
  }
  const std::vector<double> scores = predict_rows(net, ds);
  const std::vector<std::size_t> pred = model::predicted_classes(scores.data(), ds.rows, net.outputs);
  const model::ClassificationMetrics m = model::classification_metrics(pred, truth, net.outputs, ds.weights);
  const bool dense = net.outputs <= kDenseConfusionClasses;
  if (options.json) {
    json.key("accuracy").value(m.accuracy).key("macro_f1").value(m.macro_f1);
    json.key("classes").strings(net.class_names);
    // rows: true class, columns: predicted class; beyond kDenseConfusionClasses the matrix
    // would be mostly zeros (400 million numbers for 20,000 classes): its non-zero cells instead.
    json.key("confusion");
    if (dense) {
      json.begin_array();
      for (const auto& row : model::dense_confusion(m.confusion, net.outputs)) {
        json.begin_array();
        for (std::size_t count : row) json.value(count);
        json.end_array();
      }
      json.end_array();
    } else {
      json.null().key("confusion_cells").begin_array();  // [true class, predicted class, rows], 0-based
      for (const model::ConfusionCell& cell : m.confusion)
        json.begin_array().value(cell.truth).value(cell.predicted).value(cell.count).end_array();
      json.end_array();
    }
    return finish(json, true);
  }
  std::printf("  accuracy %.4f  macro-F1 %.4f\n", m.accuracy, m.macro_f1);
  if (!dense) {
    print_largest_confusions(m.confusion, net.class_names);
    return finish(json, false);
  }
  std::printf("  confusion matrix (rows: true class, columns: predicted)\n");
  const std::vector<std::vector<std::size_t>> confusion = model::dense_confusion(m.confusion, net.outputs);
  std::size_t width = 6;
  for (const auto& name : net.class_names) width = std::max(width, name.size() + 1);
  std::printf("  %*s", static_cast<int>(width), "");
  for (const auto& name : net.class_names) std::printf(" %*s", static_cast<int>(width), data::printable(name).c_str());
  std::printf("\n");
  for (std::size_t r = 0; r < net.outputs; ++r) {
    std::printf("  %*s", static_cast<int>(width), data::printable(net.class_names[r]).c_str());
    for (std::size_t c = 0; c < net.outputs; ++c) std::printf(" %*zu", static_cast<int>(width), confusion[r][c]);
    std::printf("\n");
  }
  return finish(json, false);
}

}  // namespace rbf::app
