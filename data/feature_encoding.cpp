// One-hot categories and imputed missing values: fitting the encoding, applying it, describing it.
#include "data/feature_encoding.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "data/errors.hpp"
#include "data/number_parse.hpp"
#include "data/text.hpp"

namespace rbf::data {

namespace {

// The text features of `ds` by feature index (nullptr where the column is numbers).
std::vector<const TextFeature*> text_by_feature(const Dataset& ds) {
  std::vector<const TextFeature*> text(ds.features, nullptr);
  for (const TextFeature& t : ds.text_features)
    if (t.feature < ds.features) text[t.feature] = &t;
  return text;
}

// A categorical cell's level: its text, kMissingLevel where it is missing. A column that came
// as numbers (a Python column of numbers, say) has each number's shortest text as its level.
std::string level_of(const Dataset& ds, const TextFeature* text, std::size_t feature, std::size_t row) {
  if (text) return text->cells[row].empty() ? std::string(kMissingLevel) : text->cells[row];
  const double value = ds.x[row * ds.features + feature];
  return std::isnan(value) ? std::string(kMissingLevel) : round_trip_text(value);
}

double median_of(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + mid);
  return lower + (upper - lower) / 2;
}

EncodedColumn fit_numeric(const Dataset& raw, std::size_t f, const EncodingOptions& options) {
  EncodedColumn column;
  column.name = raw.feature_names[f];
  std::vector<double> present;
  present.reserve(raw.rows);
  std::size_t first_missing = raw.rows;
  for (std::size_t i = 0; i < raw.rows; ++i) {
    const double value = raw.x[i * raw.features + f];
    if (!std::isnan(value)) {
      present.push_back(value);
    } else if (first_missing == raw.rows) {
      first_missing = i;
    }
  }
  const std::size_t missing = raw.rows - present.size();
  if (missing > 0 && !options.missing)
    throw InputError(raw.source + ": column '" + column.name + "' has " + std::to_string(missing) +
                     " missing value(s), the first in data row " + std::to_string(first_missing + 1) +
                     ", and data.missing is off; fill them, drop those rows, or set data.missing to auto "
                     "(--missing auto) to impute them");
  column.fill = median_of(std::move(present));
  // An indicator needs enough filled rows to learn from, and is constant when every row is missing.
  column.indicator = missing >= std::max<std::size_t>(options.rare_rows, 1) && missing < raw.rows;
  return column;
}

// A text column whose cells are nearly all numbers holds typos, not categories: encoding it
// would throw its numbers away silently.
void check_not_mistyped_numbers(const Dataset& raw, const TextFeature& text) {
  std::size_t numbers = 0, words = 0, first_word = 0;
  for (std::size_t i = 0; i < text.cells.size(); ++i) {
    if (text.cells[i].empty()) continue;
    double value = 0;
    if (parse_number_field(text.cells[i], value) == NumberStatus::ok) {
      ++numbers;
    } else if (words++ == 0) {
      first_word = i;
    }
  }
  if (words == 0 || 20 * words > numbers + words) return;
  const std::string& name = raw.feature_names[text.feature];
  throw InputError(raw.source + ": column '" + name + "', data row " + std::to_string(first_word + 1) + ": '" +
                   text.cells[first_word] + "' is not a number, but " + std::to_string(numbers) + " of its " +
                   std::to_string(numbers + words) +
                   " values are; fix such cells or mark them missing (an empty cell or NA), or leave the column "
                   "out of the features");
}

EncodedColumn fit_categorical(const Dataset& raw, const TextFeature& text, const EncodingOptions& options) {
  EncodedColumn column;
  column.name = raw.feature_names[text.feature];
  column.kind = ColumnKind::categorical;
  if (!options.categorical) {
    std::size_t row = 0;  // the first cell with text
    while (row < text.cells.size() && text.cells[row].empty()) ++row;
    throw InputError(raw.source + ": column '" + column.name + "' holds text" +
                     (row < text.cells.size()
                          ? " ('" + text.cells[row] + "', data row " + std::to_string(row + 1) + ")"
                          : std::string()) +
                     " and data.categorical is off; set it to auto (--categorical auto) to one-hot encode it, or "
                     "leave the column out of the features");
  }
  check_not_mistyped_numbers(raw, text);
  std::map<std::string, std::size_t> counts;
  for (std::size_t i = 0; i < raw.rows; ++i) ++counts[level_of(raw, &text, text.feature, i)];
  if (!options.missing && counts.count(kMissingLevel))
    throw InputError(raw.source + ": column '" + column.name + "' has " + std::to_string(counts[kMissingLevel]) +
                     " missing value(s) and data.missing is off; fill them, drop those rows, or set data.missing "
                     "to auto (--missing auto)");
  std::vector<std::pair<std::string, std::size_t>> by_count(counts.begin(), counts.end());
  std::stable_sort(by_count.begin(), by_count.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& level : by_count) {
    if (level.second >= options.rare_rows && column.levels.size() < options.max_levels) {
      column.levels.push_back(level.first);
    } else {
      column.pooled = true;
    }
  }
  std::sort(column.levels.begin(), column.levels.end());
  return column;
}

}  // namespace

std::size_t EncodedColumn::features() const {
  if (kind == ColumnKind::numeric) return indicator ? 2 : 1;
  return levels.size() + (pooled ? 1 : 0);
}

std::vector<std::string> FeatureEncoding::raw_names() const {
  std::vector<std::string> names;
  for (const EncodedColumn& c : columns) names.push_back(c.name);
  return names;
}

std::vector<std::string> FeatureEncoding::text_columns() const {
  std::vector<std::string> names;
  for (const EncodedColumn& c : columns)
    if (c.kind == ColumnKind::categorical) names.push_back(c.name);
  return names;
}

std::vector<std::string> FeatureEncoding::feature_names() const {
  std::vector<std::string> names;
  for (const EncodedColumn& c : columns) {
    if (c.kind == ColumnKind::numeric) {
      names.push_back(c.name);
      if (c.indicator) names.push_back(c.name + "=" + kMissingLevel);
      continue;
    }
    for (const std::string& level : c.levels) names.push_back(c.name + "=" + level);
    if (c.pooled) names.push_back(c.name + "=" + kOtherLevel);
  }
  return names;
}

bool needs_encoding(const Dataset& raw) {
  if (!raw.text_features.empty()) return true;
  return std::any_of(raw.x.begin(), raw.x.end(), [](double v) { return std::isnan(v); });
}

FeatureEncoding fit_encoding(const Dataset& raw, const EncodingOptions& options) {
  FeatureEncoding encoding;
  if (!needs_encoding(raw)) return encoding;
  const std::vector<const TextFeature*> text = text_by_feature(raw);
  for (std::size_t f = 0; f < raw.features; ++f)
    encoding.columns.push_back(text[f] ? fit_categorical(raw, *text[f], options) : fit_numeric(raw, f, options));
  return encoding;
}

EncodingReport apply_encoding(const FeatureEncoding& encoding, Dataset& raw) {
  EncodingReport report;
  const std::vector<const TextFeature*> text = text_by_feature(raw);
  if (encoding.empty()) {
    if (!needs_encoding(raw)) return report;
    for (std::size_t i = 0; i < raw.rows * raw.features; ++i) {
      const std::size_t f = i % raw.features;
      if (std::isnan(raw.x[i]) || text[f])
        throw InputError(raw.source + ": column '" + raw.feature_names[f] + "', data row " +
                         std::to_string(i / raw.features + 1) + ": " +
                         (text[f] ? "'" + text[f]->cells[i / raw.features] + "' is not a number"
                                  : std::string("the value is missing")) +
                         ", and the model was trained on numbers only, with no value to fill in");
    }
  }
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t f = 0; f < raw.features; ++f) index.emplace(raw.feature_names[f], f);
  const std::vector<std::string> names = encoding.feature_names();
  const std::size_t width = names.size();
  std::vector<double> x(raw.rows * width, 0.0);
  std::size_t out = 0;
  for (const EncodedColumn& column : encoding.columns) {
    const auto found = index.find(column.name);
    if (found == index.end())
      throw InputError(raw.source + " lacks the column '" + column.name + "' that the model was trained on");
    const std::size_t f = found->second;
    EncodingReport::Column seen;
    seen.name = column.name;
    if (column.kind == ColumnKind::numeric) {
      if (text[f])
        throw InputError(raw.source + ": column '" + column.name + "' holds text, but the model reads it as numbers");
      for (std::size_t i = 0; i < raw.rows; ++i) {
        const double value = raw.x[i * raw.features + f];
        const bool missing = std::isnan(value);
        seen.filled += missing && !column.indicator ? 1 : 0;  // flagged ones are what training learned
        x[i * width + out] = missing ? column.fill : value;
        if (column.indicator) x[i * width + out + 1] = missing ? 1.0 : 0.0;
      }
    } else {
      std::unordered_map<std::string, std::size_t> slot;
      for (std::size_t l = 0; l < column.levels.size(); ++l) slot.emplace(column.levels[l], l);
      for (std::size_t i = 0; i < raw.rows; ++i) {
        const std::string level = level_of(raw, text[f], f, i);
        const auto hit = slot.find(level);
        if (hit != slot.end()) {
          x[i * width + out + hit->second] = 1.0;
          continue;
        }
        if (column.pooled) x[i * width + out + column.levels.size()] = 1.0;
        if (level == kMissingLevel) {
          ++seen.filled;
        } else if (seen.unseen++ == 0) {
          seen.example = level;
        }
      }
    }
    if (seen.unseen > 0 || seen.filled > 0) report.columns.push_back(seen);
    out += column.features();
  }
  raw.x = std::move(x);
  raw.features = width;
  raw.feature_names = names;
  raw.text_features.clear();
  return report;
}

std::string EncodingReport::sentence() const {
  std::string text;
  for (const Column& c : columns) {
    std::string part;
    if (c.unseen > 0)
      part += std::to_string(c.unseen) + " cell(s) of '" + c.name + "' had levels without a feature of their own " +
              "(rare or unseen in training; the first '" + c.example + "')";
    if (c.filled > 0)
      part += std::string(part.empty() ? "" : ", and ") + std::to_string(c.filled) + " missing cell(s) of '" + c.name +
              "' were filled in, which training had too few of to flag";
    text += (text.empty() ? "" : "; ") + part;
  }
  return text;
}

std::vector<std::string> describe_encoding(const FeatureEncoding& encoding) {
  std::vector<std::string> lines;
  for (const EncodedColumn& c : encoding.columns) {
    if (c.kind == ColumnKind::numeric) {
      lines.push_back(c.name + ": numbers; a missing value reads as " + round_trip_text(c.fill) +
                      " (the training median)" +
                      (c.indicator ? ", flagged by '" + c.name + "=" + kMissingLevel + "'" : std::string()));
      continue;
    }
    std::string levels;
    for (const std::string& level : c.levels) levels += (levels.empty() ? "" : ", ") + level;
    lines.push_back(c.name + ": categories, one-hot: " + (levels.empty() ? std::string("no level") : levels) +
                    (c.pooled ? std::string(", and ") + kOtherLevel + " for rare and unseen levels" : std::string()));
  }
  return lines;
}

}  // namespace rbf::data
