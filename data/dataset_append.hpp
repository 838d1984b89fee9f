// Appending the rows of a second file to a Dataset with the same columns: a validation file
// given apart from the training file.
#pragma once

#include "data/dataset.hpp"

namespace rbf::data {

// Appends `more`'s rows to `into`. `more` must have been read with `into`'s feature and
// target names as its columns (so they are in the same order). Class labels are matched by
// name; a class `into` lacks is an rbf::InputError naming `more.source` and the data row.
void append_rows(Dataset& into, const Dataset& more);

}  // namespace rbf::data
