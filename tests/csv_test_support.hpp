// What the CSV reader's tests share: parsing text as "t.csv", its error message, column specs.
#pragma once

#include <string>
#include <string_view>

#include "data/csv_reader.hpp"
#include "data/errors.hpp"
#include "tests/text_checks.hpp"

namespace rbf::test::csv {

using rbf::InputError;
using rbf::data::ColumnSpec;
using rbf::data::CsvOptions;
using rbf::data::Dataset;
using rbf::data::parse_csv;
using rbf::data::TaskHint;

inline ColumnSpec target(const std::string& name) {
  ColumnSpec spec;
  spec.targets = {name};
  return spec;
}

inline CsvOptions skipping(std::size_t rows) {
  CsvOptions options;
  options.skip_rows = rows;
  return options;
}

inline Dataset parse(std::string_view text, const ColumnSpec& columns = {}, const CsvOptions& options = {},
                     TaskHint task = TaskHint::auto_detect) {
  return parse_csv(text, "t.csv", options, columns, task);
}

// The message of the InputError that parsing `text` throws, or a marker when none is thrown.
inline std::string error_of(std::string_view text, const ColumnSpec& columns = {}, const CsvOptions& options = {},
                            TaskHint task = TaskHint::auto_detect) {
  try {
    parse(text, columns, options, task);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error was thrown>";
}

inline bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

using rbf::test::contains;

inline std::string data_file(const std::string& name) { return std::string(RBF_TEST_DATA_DIR) + "/" + name; }

}  // namespace rbf::test::csv
