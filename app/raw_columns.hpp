// How the commands read raw tabular CSV columns: text and missing cells for training as the
// config allows, a model's own columns for prediction, and the note on what a model met.
#pragma once

#include <string>
#include <vector>

#include "data/csv_reader.hpp"
#include "model/config.hpp"
#include "model/network.hpp"

namespace rbf::app {

// Reads training data: text and missing feature cells as data.categorical and data.missing
// allow, and the columns a continued model (`init`, may be null) reads as text always.
data::CsvOptions training_csv_options(const model::Config& config, const model::Network* init);

// Reads the columns a model predicts from (Network::input_columns): its raw columns, with the
// encoding's text columns as text and missing cells allowed, or its features when it was
// trained on numbers.
data::CsvOptions model_csv_options(const model::Network& net, char delimiter, std::size_t skip_rows);

// Encodes `ds`, read with model_csv_options, into the model's features, and says on standard
// error what the encoding met that training did not (unseen levels, filled cells).
void encode_for_model(const model::Network& net, data::Dataset& ds);

// The model's outputs on `ds`'s rows (net.predict); a row it cannot compute is an error that
// names ds.source.
std::vector<double> predict_rows(const model::Network& net, const data::Dataset& ds);

}  // namespace rbf::app
