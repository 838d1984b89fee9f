// Spots a regression target that looks like integer class labels (digits 0-9, say), which
// auto-detection trains as regression because every value is a number.
#pragma once

#include <string>

#include "data/dataset.hpp"

namespace rbf::app {

// Columns with at most this many distinct integer values are taken for class labels.
constexpr std::size_t kMaxLabelValues = 20;

// A warning naming the column and the flag to give when `ds` is a one-target regression set
// whose target holds only a few distinct integers (and fewer than half as many as rows), or
// an empty string.
std::string integer_label_warning(const data::Dataset& ds);

}  // namespace rbf::app
