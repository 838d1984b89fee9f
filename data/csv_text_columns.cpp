// Chosen CSV columns as text, with the reader's rules for BOM, metadata lines and blank lines.
#include "data/csv_text_columns.hpp"

#include <cmath>

#include "data/csv_columns.hpp"
#include "data/missing_cell.hpp"
#include "data/csv_tokenizer.hpp"

namespace rbf::data {

namespace {

// One record's fields, unescaped.
std::vector<std::string> read_record(CsvCursor& cursor, char delimiter) {
  std::vector<std::string> fields;
  CsvField field;
  do {
    read_field(cursor, delimiter, field);
    fields.push_back(field.unescaped());
  } while (field.end == FieldEnd::delimiter);
  return fields;
}

}  // namespace

TextColumns read_text_columns(std::string_view text, const std::string& name, const CsvOptions& options,
                              const std::vector<std::string>& columns) {
  constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
  CsvCursor cursor;
  cursor.pos = text.data();
  cursor.end = text.data() + text.size();
  if (text.substr(0, kUtf8Bom.size()) == kUtf8Bom) cursor.pos += kUtf8Bom.size();
  for (std::size_t i = 0; i < options.skip_rows && !cursor.at_end(); ++i) skip_physical_line(cursor);
  TextColumns result;
  if (!skip_blank_lines(cursor)) return result;

  const std::size_t header_line = cursor.line;
  const char delimiter = options.delimiter ? options.delimiter : detect_delimiter(physical_line(cursor.pos, cursor.end));
  const std::vector<std::string> header = read_record(cursor, delimiter);
  ColumnSpec spec;
  spec.features = columns;  // "features" here only means "the columns asked for"
  const ColumnPlan plan = plan_columns(header, spec, name, header_line);
  for (std::size_t column : plan.feature_columns) result.names.push_back(header[column]);

  while (skip_blank_lines(cursor)) {
    const std::vector<std::string> fields = read_record(cursor, delimiter);
    std::vector<std::string> kept;
    kept.reserve(plan.feature_columns.size());
    for (std::size_t column : plan.feature_columns) kept.push_back(column < fields.size() ? fields[column] : "");
    result.rows.push_back(std::move(kept));
  }
  return result;
}

void read_text_features(std::string_view text, const std::string& name, const CsvOptions& options,
                        const std::vector<char>& text_slot, Dataset& data) {
  std::vector<std::string> names;
  for (std::size_t f = 0; f < text_slot.size(); ++f)
    if (text_slot[f]) names.push_back(data.feature_names[f]);
  if (names.empty()) return;
  const TextColumns read = read_text_columns(text, name, options, names);
  std::size_t at = 0;
  for (std::size_t f = 0; f < text_slot.size(); ++f) {
    if (!text_slot[f]) continue;
    TextFeature feature;
    feature.feature = f;
    feature.cells.reserve(data.rows);
    for (std::size_t i = 0; i < data.rows && i < read.rows.size(); ++i) {
      const std::string& cell = read.rows[i][at];
      feature.cells.push_back(is_missing_cell(cell) ? std::string() : cell);
      data.x[i * data.features + f] = std::nan("");
    }
    data.text_features.push_back(std::move(feature));
    ++at;
  }
}

}  // namespace rbf::data
