// `rbfnet predict`: apply a saved model to the feature columns of a CSV file.
#include <cstdio>
#include <string>

#include "app/commands.hpp"
#include "data/atomic_file.hpp"
#include "data/csv_reader.hpp"
#include "data/errors.hpp"
#include "data/file_plan.hpp"
#include "data/text.hpp"
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

}  // namespace

int run_predict(const PredictOptions& options) {
  if (!options.out.empty()) {  // checked before the work: never an input, always writable
    data::FilePlan files;
    files.input(options.model, "--model");
    files.input(options.data, "--data");
    files.output(options.out, "--out");
  }
  const model::Network net = model::load_network(options.model);
  data::CsvOptions csv;
  csv.delimiter = options.delimiter;
  csv.skip_rows = options.skip_rows;
  data::ColumnSpec columns;
  columns.features = net.feature_names;  // by name; any other column (a target, say) is ignored
  const data::Dataset ds = data::read_csv(options.data, csv, columns, data::TaskHint::regression);

  std::string text;
  const bool classify = net.task == data::Task::classification;
  for (std::size_t j = 0; j < net.target_names.size(); ++j) text += (j ? "," : "") + csv_field(net.target_names[j]);
  text += '\n';
  if (classify) {
    const std::vector<std::size_t> classes = net.predict_classes(ds.x.data(), ds.rows);
    for (std::size_t c : classes) text += csv_field(net.class_names[c]) + '\n';
  } else {
    std::vector<double> out;
    net.predict(ds.x.data(), ds.rows, out);
    for (std::size_t i = 0; i < ds.rows; ++i) {
      // Shortest text that reads back as the same double: 1e9+123 stays 1000000123.
      for (std::size_t j = 0; j < net.outputs; ++j) {
        if (j > 0) text += ',';
        text += data::round_trip_text(out[i * net.outputs + j]);
      }
      text += '\n';
    }
  }
  if (options.out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (std::fflush(stdout) != 0) throw RuntimeError("cannot write the predictions to standard output");
  } else {
    data::write_file_atomically(options.out, text.data(), text.size());
    std::fprintf(stderr, "wrote %zu predictions to %s\n", ds.rows, options.out.c_str());
  }
  return 0;
}

}  // namespace rbf::app
