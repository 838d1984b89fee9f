// `rbfnet predict`: apply a saved model to the feature columns of a CSV file.
#include <algorithm>
#include <cstdio>
#include <string>

#include "app/commands.hpp"
#include "app/file_checks.hpp"
#include "app/raw_columns.hpp"
#include "data/atomic_file.hpp"
#include "data/csv_reader.hpp"
#include "data/csv_text_columns.hpp"
#include "data/errors.hpp"
#include "data/file_plan.hpp"
#include "data/input_file.hpp"
#include "data/text.hpp"
#include "model/metrics.hpp"
#include "model/model_file.hpp"

namespace rbf::app {

namespace {

// Quotes a CSV field when it needs it (RFC 4180).
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n;\t") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// One output line's cells after the passthrough columns, for every row.
// The name of a prediction column: the model's, or NAME_predicted where a kept column (--keep
// species, the true labels beside the predicted) already has that name, so the header never
// holds one name twice (rbfnet refuses such a file; pandas renames it).
std::string prediction_column(const std::string& name, const std::vector<std::string>& kept) {
  std::string out = name;
  while (std::find(kept.begin(), kept.end(), out) != kept.end()) out += "_predicted";
  return out;
}

std::vector<std::string> prediction_cells(const model::Network& net, const data::Dataset& ds, bool proba,
                                          std::string& header, const std::vector<std::string>& kept) {
  std::vector<std::string> cells(ds.rows);
  for (std::size_t j = 0; j < net.target_names.size(); ++j)
    header += (j ? "," : "") + csv_field(prediction_column(net.target_names[j], kept));
  const std::vector<double> out = predict_rows(net, ds);
  if (net.task == data::Task::classification) {
    const std::vector<std::size_t> classes = model::predicted_classes(out.data(), ds.rows, net.outputs);
    for (std::size_t i = 0; i < ds.rows; ++i) cells[i] = csv_field(net.class_names[classes[i]]);
    if (!proba) return cells;
    for (const std::string& name : net.class_names) header += "," + csv_field(prediction_column("proba_" + name, kept));
    const std::vector<double> p = model::class_probabilities(out.data(), ds.rows, net.outputs, net.proba_scale);
    for (std::size_t i = 0; i < ds.rows; ++i)
      for (std::size_t c = 0; c < net.outputs; ++c) cells[i] += ',' + data::round_trip_text(p[i * net.outputs + c]);
    return cells;
  }
  for (std::size_t i = 0; i < ds.rows; ++i) {
    // Shortest text that reads back as the same double: 1e9+123 stays 1000000123.
    for (std::size_t j = 0; j < net.outputs; ++j) {
      if (j > 0) cells[i] += ',';
      cells[i] += data::round_trip_text(out[i * net.outputs + j]);
    }
  }
  return cells;
}

}  // namespace

int run_predict(const PredictOptions& options) {
  const bool to_stdout = options.out.empty() || options.out == "-";
  const std::string data_path = input_path(options.data);
  if (!to_stdout) {  // checked before the work: never an input, always writable
    data::FilePlan files;
    files.input(options.model, "--model");
    files.input(data_path, "--data");
    files.output(options.out, "--out");
  }
  const model::Network net = model::load_network(options.model);
  if (options.proba && net.task != data::Task::classification)
    throw InputError("--proba needs a classification model; '" + options.model + "' is a regression model");

  const std::string name = input_name(options.data);
  const data::InputBytes bytes = data::read_input_file(data_path, "data file");  // read once: stdin cannot rewind
  const data::CsvOptions csv = model_csv_options(net, options.delimiter, options.skip_rows);
  data::ColumnSpec columns;
  columns.features = net.input_columns();  // by name; any other column (a target, say) is ignored
  data::Dataset ds = data::parse_csv(bytes.view(), name, csv, columns, data::TaskHint::regression);
  encode_for_model(net, ds);
  const data::TextColumns kept =
      options.keep.empty() ? data::TextColumns() : data::read_text_columns(bytes.view(), name, csv, options.keep);

  std::string header;
  for (const std::string& column : kept.names) header += csv_field(column) + ',';
  std::string predictions_header;
  const std::vector<std::string> cells =
      prediction_cells(net, ds, options.proba, predictions_header, kept.names);
  std::string text;
  text.reserve(ds.rows * 16);
  text += header + predictions_header + '\n';
  for (std::size_t i = 0; i < ds.rows; ++i) {
    if (i < kept.rows.size())
      for (const std::string& value : kept.rows[i]) text += csv_field(value) + ',';
    text += cells[i] + '\n';
  }
  if (to_stdout) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (std::fflush(stdout) != 0) throw RuntimeError("cannot write the predictions to standard output");
  } else {
    data::write_file_atomically(options.out, text.data(), text.size());
    std::fprintf(stderr, "wrote %zu predictions to %s\n", ds.rows, options.out.c_str());
  }
  return 0;
}

}  // namespace rbf::app
