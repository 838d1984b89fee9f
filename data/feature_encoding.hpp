// Raw tabular columns to numbers: text columns one-hot encoded, missing values imputed with an
// indicator. Fitted on the training rows, kept in the model, applied to every row it predicts.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "data/dataset.hpp"

namespace rbf::data {

// The data.categorical, data.missing, data.rare_level_rows and data.max_levels keys.
struct EncodingOptions {
  bool categorical = true;       // text columns one-hot encoded; false: text is an error
  bool missing = true;           // missing cells imputed; false: a missing cell is an error
  std::size_t rare_rows = 10;    // levels in fewer training rows share one "(other)" feature
  std::size_t max_levels = 30;   // at most this many levels of a column get their own feature
};

enum class ColumnKind { numeric = 0, categorical = 1 };

// The encoded feature names' suffixes ("age=(missing)", "port=(other)").
inline constexpr char kMissingLevel[] = "(missing)";
inline constexpr char kOtherLevel[] = "(other)";

// How one raw column becomes features.
struct EncodedColumn {
  std::string name;
  ColumnKind kind = ColumnKind::numeric;
  // numeric: a missing cell becomes `fill` (the training rows' median), and with `indicator`
  // a 0/1 feature "NAME=(missing)" follows the value, so the model can tell filled cells apart.
  double fill = 0;
  bool indicator = false;
  // categorical: one 0/1 feature "NAME=LEVEL" per level (a missing cell is the level
  // "(missing)" when it is frequent enough to have one), then with `pooled` one "NAME=(other)"
  // for the rare levels, which at prediction also takes levels training never saw.
  std::vector<std::string> levels;
  bool pooled = false;

  std::size_t features() const;
};

struct FeatureEncoding {
  std::vector<EncodedColumn> columns;  // empty: the data are numbers, used as they are

  bool empty() const { return columns.empty(); }
  std::vector<std::string> raw_names() const;       // the columns a prediction reads
  std::vector<std::string> text_columns() const;    // those read as text (categorical)
  std::vector<std::string> feature_names() const;   // the encoded features, in order
};

// What an encoding met that its training rows did not show, per column.
struct EncodingReport {
  struct Column {
    std::string name;
    std::size_t unseen = 0;   // categorical cells of levels training never saw
    std::string example;      // the first such level
    std::size_t filled = 0;   // missing cells filled in without a flag or level of their own
  };
  std::vector<Column> columns;  // only columns with something to report

  bool empty() const { return columns.empty(); }
  // One sentence for users ("3 rows of 'port' had levels training never saw ('Q'), read as
  // 'port=(other)'; ..."), or "" when there is nothing to say.
  std::string sentence() const;
};

// Whether `raw` needs an encoding: text columns or missing (NaN) cells.
bool needs_encoding(const Dataset& raw);

// Fits the encoding on every row of `raw` (the training file's rows). An empty encoding when
// raw has no text column and no missing cell. Throws rbf::InputError naming the column for
// text or missing cells that `options` turn off, and for a text column whose cells are mostly
// numbers (a typo in a numeric column, not categories).
FeatureEncoding fit_encoding(const Dataset& raw, const EncodingOptions& options);

// Encodes `raw` in place: x, features and feature_names become the encoded ones and
// text_features is cleared. Columns are matched by name. An empty encoding leaves the data
// as they are (a missing cell is then an error). Returns what it met that training did not.
EncodingReport apply_encoding(const FeatureEncoding& encoding, Dataset& raw);

// One line per column for `rbfnet inspect`: "sex: categorical, 2 levels (female, male)".
std::vector<std::string> describe_encoding(const FeatureEncoding& encoding);

}  // namespace rbf::data
