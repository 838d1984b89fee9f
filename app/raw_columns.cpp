// Reading raw tabular CSV columns for training and for a model's predictions.
#include "app/raw_columns.hpp"

#include <cstdio>

#include "data/errors.hpp"
#include "data/feature_encoding.hpp"

namespace rbf::app {

data::CsvOptions training_csv_options(const model::Config& config, const model::Network* init) {
  data::CsvOptions csv;
  csv.delimiter = config.data.delimiter;
  csv.skip_rows = config.data.skip_rows;
  csv.missing_features = config.data.missing;
  csv.text_features = config.data.categorical;
  if (!config.data.missing)
    csv.missing_advice = "data.missing is off: fill the cell or drop the row, or set --missing auto to impute it";
  if (!config.data.categorical)
    csv.text_advice = "data.categorical is off: set --categorical auto to one-hot encode text columns, or leave the "
                      "column out of the features (--features)";
  if (init) csv.text_columns = init->encoding.text_columns();
  return csv;
}

data::CsvOptions model_csv_options(const model::Network& net, char delimiter, std::size_t skip_rows) {
  data::CsvOptions csv;
  csv.delimiter = delimiter;
  csv.skip_rows = skip_rows;
  if (net.encoding.empty()) {
    csv.missing_advice = "the model was trained on complete rows and has no value to fill in; fill the cell or "
                         "drop the row";
    csv.text_advice = "the model was trained on numbers only";
    return csv;
  }
  csv.missing_features = true;
  csv.text_columns = net.encoding.text_columns();
  csv.text_advice = "the model reads this column as numbers";
  return csv;
}

void encode_for_model(const model::Network& net, data::Dataset& ds) {
  const data::EncodingReport report = data::apply_encoding(net.encoding, ds);
  if (!report.empty()) std::fprintf(stderr, "rbfnet: note: %s\n", report.sentence().c_str());
}

std::vector<double> predict_rows(const model::Network& net, const data::Dataset& ds) {
  std::vector<double> out;
  try {
    net.predict(ds.x.data(), ds.rows, out);
  } catch (const InputError& e) {
    throw InputError(ds.source + ": " + e.what());
  }
  return out;
}

}  // namespace rbf::app
