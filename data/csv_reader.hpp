// Reads a numeric/labelled CSV file into a Dataset, with errors that name file, line and column.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "data/dataset.hpp"

namespace rbf::data {

struct CsvOptions {
  char delimiter = 0;          // 0 = detect among ',', ';' and '\t' from the header line
  std::size_t skip_rows = 0;   // metadata lines before the header row
};

enum class TaskHint { auto_detect, regression, classification };

struct ColumnSpec {
  // Target columns by name or 0-based index (as text). Empty: features only (prediction).
  std::vector<std::string> targets;
  // Feature columns by name or index. Empty: every column that is not a target.
  // When given, other columns (a target column in a prediction file, say) are ignored.
  std::vector<std::string> features;
};

// Reads `path`. Throws rbf::InputError with "FILE:LINE:COLUMN: what is wrong" for every
// malformed input: empty file, header only, ragged row, missing or non-numeric value,
// NaN/Inf, out-of-range number, duplicate column names, unknown column, unterminated quote,
// binary content. Classification targets become class indices; class_names are sorted
// (numerically when every label is a number).
Dataset read_csv(const std::string& path, const CsvOptions& options, const ColumnSpec& columns,
                 TaskHint task = TaskHint::auto_detect);

// Same, from text already in memory (tests, fuzzing); `name` is used in messages.
Dataset parse_csv(std::string_view text, const std::string& name, const CsvOptions& options,
                  const ColumnSpec& columns, TaskHint task = TaskHint::auto_detect);

}  // namespace rbf::data
