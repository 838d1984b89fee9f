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
  // Raw tabular data (data/feature_encoding.hpp encodes it): a missing cell of a feature
  // (data/missing_cell.hpp) reads as NaN; a feature column with text becomes a text feature.
  bool missing_features = false;
  bool text_features = false;
  std::vector<std::string> text_columns;  // feature columns read as text whatever they hold
  // What the message of a missing or non-numeric feature cell advises instead of the default.
  std::string missing_advice, text_advice;
};

enum class TaskHint { auto_detect, regression, classification };

struct ColumnSpec {
  // Target columns by name or 0-based index (as text). Empty: features only (prediction).
  std::vector<std::string> targets;
  // Feature columns by name or index. Empty: every column that is not a target.
  // When given, other columns (a target column in a prediction file, say) are ignored.
  std::vector<std::string> features;
  // The column of per-row sample weights (non-negative numbers) by name or index; "" = none.
  // It is neither a feature nor a target.
  std::string weight;
};

// Format details (where RFC 4180 leaves a choice):
// - A UTF-8 byte-order mark is skipped. `skip_rows` drops that many physical lines before
//   the header, read raw (quotes in them mean nothing). Empty lines are skipped anywhere,
//   so a one-column file cannot hold an empty value.
// - Line endings "\n", "\r\n" and a lone "\r" all end a line. LINE in messages is the
//   physical line, counting skipped lines and the lines inside quoted fields; COLUMN is the
//   1-based field number. Problems with no single field (an empty file, no data rows, an
//   unknown column) read "FILE:LINE: what is wrong".
// - Quoted fields may hold delimiters, doubled quotes and line breaks. Spaces (and tabs,
//   unless tab is the delimiter) around a field are not part of it. A quote inside an
//   unquoted field is an ordinary character.
// - Numbers are read in the "C" locale whatever the process locale, as from_chars reads
//   them, plus one optional leading '+'. NaN, infinity and magnitudes beyond a double are
//   errors; underflow reads as 0.
// - With TaskHint::auto_detect a target column is a class label column when any of its
//   values is not a number; class labels need exactly one target column.
//
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
