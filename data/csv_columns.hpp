// Resolves the target and feature columns a user asked for (by name or index) against a header.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "data/csv_reader.hpp"

namespace rbf::data {

enum class ColumnRole : unsigned char { ignored, feature, target, weight };

struct ColumnPlan {
  std::vector<ColumnRole> role;              // per header column
  std::vector<std::size_t> slot;             // per header column: its feature or target index
  std::vector<std::size_t> feature_columns;  // header column of each feature, in output order
  std::vector<std::size_t> target_columns;   // header column of each target, in output order
  std::size_t weight_column = static_cast<std::size_t>(-1);  // the sample weights' column; -1: none
};

// Maps `columns` onto `header`. A spec is first a column name, then a 0-based index.
// Throws InputError "FILE:LINE: ..." (LINE = the header's line) for an unknown name, an
// index out of range, a column named twice or in two roles (target, feature, weight), or no
// features.
ColumnPlan plan_columns(const std::vector<std::string>& header, const ColumnSpec& columns, const std::string& file,
                        std::size_t header_line);

}  // namespace rbf::data
