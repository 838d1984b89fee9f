// Reads chosen columns of a CSV file as text, row by row: passthrough columns (ids, labels)
// that a prediction file repeats beside its predictions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "data/csv_reader.hpp"

namespace rbf::data {

struct TextColumns {
  std::vector<std::string> names;              // the header's name of each chosen column
  std::vector<std::vector<std::string>> rows;  // per data row, the chosen cells in order
};

// The cells of `columns` (names or 0-based indices, as ColumnSpec takes them), one vector per
// data row in file order, unescaped. Meant for text that parse_csv has already accepted with
// the same options, so its rows are the rows of that Dataset; an unknown column is an
// rbf::InputError naming the file and the header line.
TextColumns read_text_columns(std::string_view text, const std::string& name, const CsvOptions& options,
                              const std::vector<std::string>& columns);

// Fills data.text_features with the cells of each feature whose `text_slot` is set (missing
// markers read as ""), and NaN in their place in data.x; `text` is what parse_csv read `data` from.
void read_text_features(std::string_view text, const std::string& name, const CsvOptions& options,
                        const std::vector<char>& text_slot, Dataset& data);

}  // namespace rbf::data
