// Reads CSV text into a Dataset: header, column plan, a fast numeric row loop, class labels.
#include "data/csv_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <unordered_map>

#include "data/class_labels.hpp"
#include "data/csv_columns.hpp"
#include "data/csv_messages.hpp"
#include "data/csv_text_columns.hpp"
#include "data/csv_tokenizer.hpp"
#include "data/delimiter_hint.hpp"
#include "data/errors.hpp"
#include "data/input_file.hpp"
#include "data/missing_cell.hpp"
#include "data/number_parse.hpp"
#include "data/sample_weights.hpp"

namespace rbf::data {

namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// A problem in a target value that only becomes an error once the whole column is seen:
// in auto mode a "nan" is a bad number in a numeric column but a fine label in a label column.
struct DeferredValue {
  bool seen = false;
  std::size_t line = 0;
  std::size_t column = 0;
  std::string text;
  NumberStatus status = NumberStatus::ok;

  void record(std::size_t at_line, std::size_t at_column, std::string_view value, NumberStatus why) {
    if (seen) return;
    seen = true;
    line = at_line;
    column = at_column;
    text = std::string(value);
    status = why;
  }
};

// One parse of one text. Rows are read in a single pass; numbers are converted in place
// from the text (no per-field strings), and only label cells keep a view of their text.
class CsvParser {
 public:
  CsvParser(std::string_view text, const std::string& name, const CsvOptions& options, const ColumnSpec& columns,
            TaskHint task)
      : text_(text), name_(name), options_(options), columns_(columns), task_(task) {
    cursor_.pos = text.data();
    cursor_.end = text.data() + text.size();
  }

  Dataset parse() {
    check_delimiter_option();
    reject_nul_bytes(text_, name_, options_.delimiter);
    if (text_.substr(0, kUtf8Bom.size()) == kUtf8Bom) cursor_.pos += kUtf8Bom.size();
    skip_metadata_lines();
    read_header();
    read_rows();
    return finish();
  }

 private:
  void check_delimiter_option() const {
    const char d = options_.delimiter;
    if (d == '"' || d == '\n' || d == '\r' || d == ' ') {
      throw InputError(name_ + ": the delimiter " + quote_for_message(std::string_view(&d, 1)) +
                       " cannot be used: it must not be a quote, a space or a line break");
    }
  }

  void skip_metadata_lines() {
    for (std::size_t i = 0; i < options_.skip_rows; ++i) {
      if (cursor_.at_end()) {
        throw csv_error(name_, cursor_.line,
                        "the file ends after " + std::to_string(cursor_.line - 1) + " line(s), before the " +
                            std::to_string(options_.skip_rows) + " metadata line(s) to skip and the header row");
      }
      skip_physical_line(cursor_);
    }
  }

  void read_header() {
    if (!skip_blank_lines(cursor_)) {
      const std::string why =
          options_.skip_rows == 0
              ? (text_.empty() ? "the file is empty: expected a header row"
                               : "the file has no header row, only blank lines")
              : "no header row after the " + std::to_string(options_.skip_rows) + " skipped metadata line(s)";
      throw csv_error(name_, cursor_.line, why);
    }
    header_line_ = cursor_.line;
    header_text_ = physical_line(cursor_.pos, cursor_.end);
    delimiter_ = options_.delimiter ? options_.delimiter : detect_delimiter(header_text_);

    std::unordered_map<std::string, std::size_t> seen;
    CsvField field;
    do {
      const std::size_t column = header_.size();
      read_checked(field, column, "header");
      std::string name = field.unescaped();
      std::size_t bad = 0;
      if (!is_valid_utf8(name, bad)) {
        char byte[8];
        std::snprintf(byte, sizeof byte, "\\x%02X", static_cast<unsigned char>(name[bad]));
        throw csv_error(name_, field.line, column + 1,
                        "the header's column " + std::to_string(column + 1) + " is not valid UTF-8 text (byte " + byte +
                            "): this looks like binary data or another encoding");
      }
      if (name.empty()) {
        throw csv_error(
            name_, field.line, column + 1,
            "the header's column " + std::to_string(column + 1) + " has no name; every column needs a unique name");
      }
      const auto inserted = seen.emplace(name, column);
      if (!inserted.second) {
        throw csv_error(name_, field.line, column + 1,
                        "duplicate column name " + quote_for_message(name) + ": column " + std::to_string(column + 1) +
                            " repeats column " + std::to_string(inserted.first->second + 1));
      }
      header_.push_back(std::move(name));
    } while (field.end == FieldEnd::delimiter);

    try {
      plan_ = plan_columns(header_, columns_, name_, header_line_);
    } catch (const InputError& e) {
      // "unknown target column 'y'" of a header "x;y" read with ',' is a delimiter problem.
      if (header_.size() != 1) throw;
      throw InputError(e.what() + delimiter_hint(header_text_, delimiter_));
    }
    if (task_ == TaskHint::classification && plan_.target_columns.size() > 1) {
      throw csv_error(name_, header_line_,
                      "classification needs exactly one target column, but " +
                          std::to_string(plan_.target_columns.size()) + " were given");
    }
    keep_labels_ = task_ != TaskHint::regression && !plan_.target_columns.empty();
    raw_ = options_.missing_features || options_.text_features || !options_.text_columns.empty();
    text_slot_.assign(plan_.feature_columns.size(), 0);
    for (std::size_t slot = 0; slot < plan_.feature_columns.size(); ++slot)
      for (const std::string& name : options_.text_columns)
        if (header_[plan_.feature_columns[slot]] == name) text_slot_[slot] = 1;
  }

  void read_rows() {
    const std::size_t column_count = header_.size();
    const std::size_t feature_count = plan_.feature_columns.size();
    const std::size_t target_count = plan_.target_columns.size();
    // Size the matrices once instead of regrowing (and copying) them many times. A row has
    // a line ending and (unless ignored cells are empty) at least 2 bytes per column; the
    // hint only saves copies, the loop below still grows the matrices when it falls short.
    const auto remaining = static_cast<std::size_t>(cursor_.end - cursor_.pos);
    const auto line_ends = static_cast<std::size_t>(std::count(cursor_.pos, cursor_.end, '\n'));
    const std::size_t rows_hint = std::min(line_ends + 1, remaining / (2 * column_count) + 1);
    x_.resize(rows_hint * feature_count);
    y_.resize(rows_hint * target_count);
    if (keep_labels_) labels_.reserve(rows_hint * target_count);

    // What to do with each column's cells, decided once rather than per cell.
    enum class Cell : unsigned char { feature, numeric_target, label, weight, skipped };
    std::vector<Cell> cells(column_count);
    for (std::size_t column = 0; column < column_count; ++column) {
      switch (plan_.role[column]) {
        case ColumnRole::feature:
          cells[column] = Cell::feature;
          break;
        case ColumnRole::target:
          cells[column] = keep_labels_ ? Cell::label : Cell::numeric_target;
          break;
        case ColumnRole::weight:
          cells[column] = Cell::weight;
          break;
        case ColumnRole::ignored:
          cells[column] = Cell::skipped;
          break;
      }
    }
    if (plan_.weight_column != static_cast<std::size_t>(-1)) weights_.reserve(rows_hint);

    while (skip_blank_lines(cursor_)) {
      const std::size_t row_line = cursor_.line;
      if (x_.size() < (rows_ + 1) * feature_count) x_.resize(2 * (rows_ + 1) * feature_count);
      if (y_.size() < (rows_ + 1) * target_count) y_.resize(2 * (rows_ + 1) * target_count);
      double* const x_row = x_.data() + rows_ * feature_count;
      double* const y_row = y_.data() + rows_ * target_count;
      for (std::size_t column = 0; column < column_count; ++column) {
        FieldEnd end = FieldEnd::file;
        const std::size_t slot = plan_.slot[column];
        const char* const start = cursor_.pos;
        double value = 0.0;
        switch (cells[column]) {
          case Cell::feature:
            if (!read_plain_number(value, end)) value = raw_ ? read_raw_feature(column, slot, end) : read_number(column, end);
            x_row[slot] = value;
            break;
          case Cell::numeric_target:
            if (!read_plain_number(value, end)) value = read_number(column, end);
            y_row[slot] = value;
            break;
          case Cell::weight:
            if (!read_plain_number(value, end)) value = read_number(column, end);
            if (value < 0) throw csv_error(name_, row_line, column + 1, negative_weight_message(value, header_[column]));
            weights_.push_back(value);
            break;
          case Cell::label:
            // A plain number is its own label text; only other cells need the full path.
            if (const char* stop = read_plain_number(value, end)) {
              labels_.emplace_back(start, static_cast<std::size_t>(stop - start));
            } else {
              value = read_label(column, end);
            }
            y_row[slot] = value;
            break;
          case Cell::skipped: {
            CsvField field;
            read_checked(field, column, nullptr);
            end = field.end;
            break;
          }
        }
        if (end == FieldEnd::delimiter && column + 1 == column_count) too_many_fields(row_line);
        if (end != FieldEnd::delimiter && column + 1 < column_count) {
          throw csv_error(name_, row_line, column + 2,
                          "the row has " + std::to_string(column + 1) + " field(s) but the header has " +
                              std::to_string(column_count) + ": " + column_label(column + 1, header_[column + 1]) +
                              " is missing");
        }
      }
      ++rows_;
    }
    if (rows_ == 0) {
      throw csv_error(
          name_, std::max(cursor_.line, header_line_ + 1),
          "no data rows: the file has a header row (line " + std::to_string(header_line_) + ") but nothing after it");
    }
    x_.resize(rows_ * feature_count);
    y_.resize(rows_ * target_count);
  }

  // The common case: a plain finite number right before its delimiter or line end, converted
  // in place. Returns the end of the number and steps past the terminator; returns nullptr
  // with the cursor untouched for anything else, which read_number/read_label then handle.
  const char* read_plain_number(double& value, FieldEnd& end) {
    const char* const start = cursor_.pos;
    const char* stop = parse_short_decimal(start, cursor_.end, value);  // always finite
    if (!stop) {
      stop = parse_double_full(start, cursor_.end, value);
      if (stop == start || !std::isfinite(value)) return nullptr;
    }
    if (stop == cursor_.end) {
      cursor_.pos = stop;
      end = FieldEnd::file;
    } else if (*stop == delimiter_) {
      cursor_.pos = stop + 1;
      end = FieldEnd::delimiter;
    } else if (*stop == '\n' || *stop == '\r') {
      cursor_.pos = stop;
      cursor_.consume_line_end();
      end = FieldEnd::record;
    } else {
      return nullptr;
    }
    return stop;
  }

  // Any numeric field that is not plain: quoted, padded, signed with '+', or an error.
  double read_number(std::size_t column, FieldEnd& end) {
    double value = 0.0;
    CsvField field;
    read_checked(field, column, nullptr);
    end = field.end;
    const std::string unescaped = field.has_doubled_quotes ? field.unescaped() : std::string();
    const std::string_view text = field.has_doubled_quotes ? std::string_view(unescaped) : field.text;
    const NumberStatus status = parse_number_field(text, value);
    if (status != NumberStatus::ok) throw number_error(status, text, field.line, column);
    return value;
  }

  // A feature cell of raw tabular data that is not a plain number: NaN where it is missing or
  // text (its column then read as text in finish()), else as read_number reads it.
  double read_raw_feature(std::size_t column, std::size_t slot, FieldEnd& end) {
    CsvField field;
    read_checked(field, column, nullptr);
    end = field.end;
    const std::string unescaped = field.has_doubled_quotes ? field.unescaped() : std::string();
    const std::string_view text = field.has_doubled_quotes ? std::string_view(unescaped) : field.text;
    double value = 0.0;
    const NumberStatus status = parse_number_field(text, value);
    if (status == NumberStatus::ok || text_slot_[slot]) return value;
    if (is_missing_cell(text)) {  // never text: "NA" in a numeric column is a gap, allowed or not
      if (options_.missing_features) return std::nan("");
      throw number_error(NumberStatus::empty, text, field.line, column);
    }
    if (options_.text_features && status == NumberStatus::not_a_number) {
      text_slot_[slot] = 1;
      return value;
    }
    throw number_error(status, text, field.line, column);
  }

  // A target cell kept as text until the whole column is known (auto) or always (classification).
  double read_label(std::size_t column, FieldEnd& end) {
    CsvField field;
    read_checked(field, column, nullptr);
    end = field.end;
    std::string_view text = field.text;
    if (field.has_doubled_quotes) {
      label_storage_.push_back(field.unescaped());
      text = label_storage_.back();
    }
    if (text.empty()) throw number_error(NumberStatus::empty, text, field.line, column);
    std::size_t bad = 0;
    if (!is_valid_utf8(text, bad)) {
      throw csv_error(name_, field.line, column + 1,
                      quote_for_message(text) + " in target " + column_label(column, header_[column]) +
                          " is not valid UTF-8 text: this looks like binary data or another encoding");
    }
    labels_.push_back(text);
    if (task_ == TaskHint::classification) return 0.0;
    double value = 0.0;
    const NumberStatus status = parse_number_field(text, value);
    if (status == NumberStatus::not_a_number) {
      first_label_.record(field.line, column, text, status);
      ++text_targets_;
    } else if (status != NumberStatus::ok) {
      first_bad_number_.record(field.line, column, text, status);
    }
    return value;
  }

  // read_field plus the two quoting errors, located at the field.
  void read_checked(CsvField& field, std::size_t column, const char* where) {
    const FieldStatus status = read_field(cursor_, delimiter_, field);
    if (status == FieldStatus::ok) return;
    const std::string in = where ? std::string("the ") + where + "'s column " + std::to_string(column + 1)
                                 : column_label(column, header_[column]);
    if (status == FieldStatus::unterminated_quote) {
      throw csv_error(name_, field.line, column + 1,
                      "unterminated quote: the quoted field in " + in + " that starts on this line is never closed");
    }
    throw csv_error(name_, cursor_.line, column + 1,
                    "unexpected text " + quote_for_message(physical_line(cursor_.pos, cursor_.end)) +
                        " after the closing quote in " + in + "; a quote inside a quoted field must be doubled (\"\")");
  }

  InputError number_error(NumberStatus status, std::string_view text, std::size_t line, std::size_t column) const {
    const bool target = plan_.role[column] == ColumnRole::target;
    const bool one_column = header_.size() == 1 && text.find_first_of(",;\t|:") != std::string_view::npos;
    const std::string& advice = status == NumberStatus::empty ? options_.missing_advice : options_.text_advice;
    return csv_number_error(name_, line, column + 1, status, text,
                            (target ? "target " : "") + column_label(column, header_[column]), target,
                            one_column ? delimiter_hint(header_text_, delimiter_) : std::string(), advice);
  }

  [[noreturn]] void too_many_fields(std::size_t row_line) {
    std::size_t fields = header_.size() + 1;
    CsvField field;
    while (read_field(cursor_, delimiter_, field) == FieldStatus::ok && field.end == FieldEnd::delimiter) {
      ++fields;
    }
    throw csv_error(
        name_, row_line, header_.size() + 1,
        "the row has " + std::to_string(fields) + " fields but the header has " + std::to_string(header_.size()));
  }

  Dataset finish() {
    Dataset data;
    data.source = name_;
    data.rows = rows_;
    data.features = plan_.feature_columns.size();
    for (const std::size_t column : plan_.feature_columns) data.feature_names.push_back(header_[column]);
    for (const std::size_t column : plan_.target_columns) data.target_names.push_back(header_[column]);
    data.targets = plan_.target_columns.size();

    // Mostly numbers with a few words ("NA", "n/a") is a numeric target with bad cells, not a
    // classification with hundreds of classes: say where the first one is.
    if (task_ == TaskHint::auto_detect && first_label_.seen && plan_.target_columns.size() == 1 &&
        2 * text_targets_ < labels_.size()) {
      throw csv_error(name_, first_label_.line, first_label_.column + 1,
                      quote_for_message(first_label_.text) + " in target " +
                          column_label(first_label_.column, header_[first_label_.column]) + " is not a number, but " +
                          std::to_string(labels_.size() - text_targets_) + " of its " +
                          std::to_string(labels_.size()) +
                          " values are; fix or drop such rows, or give --task classification if they are class labels");
    }
    const bool classification =
        task_ == TaskHint::classification || (task_ == TaskHint::auto_detect && first_label_.seen);
    if (classification && !plan_.target_columns.empty()) {
      if (plan_.target_columns.size() > 1) {
        throw csv_error(name_, first_label_.line, first_label_.column + 1,
                        quote_for_message(first_label_.text) + " in target " +
                            column_label(first_label_.column, header_[first_label_.column]) +
                            " is not a number, and class labels need exactly one target column, but " +
                            std::to_string(plan_.target_columns.size()) + " were given");
      }
      data.task = Task::classification;
      data.class_names = assign_class_indices(labels_, y_);
    } else if (first_bad_number_.seen) {
      throw number_error(first_bad_number_.status, first_bad_number_.text, first_bad_number_.line,
                         first_bad_number_.column);
    }
    data.x = std::move(x_);
    data.y = std::move(y_);
    if (plan_.weight_column != static_cast<std::size_t>(-1)) {
      check_weights(weights_, name_ + ": the sample weights in column " + quote_for_message(header_[plan_.weight_column]));
      data.weights = std::move(weights_);
      data.weight_name = header_[plan_.weight_column];
    }
    read_text_features(text_, name_, options_, text_slot_, data);
    return data;
  }

  std::string_view text_;
  const std::string& name_;
  const CsvOptions& options_;
  const ColumnSpec& columns_;
  TaskHint task_;

  CsvCursor cursor_;
  char delimiter_ = ',';
  std::string_view header_text_;  // the header's physical line, for the delimiter hint
  std::size_t header_line_ = 1;
  std::vector<std::string> header_;
  ColumnPlan plan_;
  bool keep_labels_ = false;
  bool raw_ = false;                // options_ ask for raw tabular data
  std::vector<char> text_slot_;     // per feature: read as text

  std::size_t rows_ = 0;
  std::vector<double> x_;
  std::vector<double> y_;
  std::vector<double> weights_;            // the weight column's values, when there is one
  std::vector<std::string_view> labels_;   // row-major target cells, when kept as text
  std::deque<std::string> label_storage_;  // unescaped labels; a deque keeps views valid
  DeferredValue first_label_;              // first target cell that is not a number
  DeferredValue first_bad_number_;         // first target cell that is NaN/Inf/out of range
  std::size_t text_targets_ = 0;           // target cells that are not numbers (auto)
};

}  // namespace

Dataset parse_csv(std::string_view text, const std::string& name, const CsvOptions& options, const ColumnSpec& columns,
                  TaskHint task) {
  return CsvParser(text, name, options, columns, task).parse();
}

Dataset read_csv(const std::string& path, const CsvOptions& options, const ColumnSpec& columns, TaskHint task) {
  const InputBytes buffer = read_input_file(path, "data file");
  return parse_csv(buffer.view(), path, options, columns, task);
}

}  // namespace rbf::data
