// Per-row sample weights: the checks every source of weights passes (a CSV column, Python's
// sample_weight and class_weight), and the classes' balanced weights.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "data/dataset.hpp"

namespace rbf::data {

// Throws InputError "WHERE: why" unless every weight is finite and >= 0 and some are > 0.
// `where` names them ("iris.csv: the sample weights in column 'w'").
void check_weights(const std::vector<double>& weights, const std::string& where);

// The message for one weight cell that is negative, for the CSV reader's "FILE:LINE:COL:".
std::string negative_weight_message(double value, const std::string& column);

// Weights that give every class the same total, as scikit-learn's class_weight="balanced":
// rows / (classes x rows of the class), per class index in `y` (class indices, as Dataset::y
// holds them for classification). Classes with no rows get 0.
std::vector<double> balanced_class_weights(const std::vector<double>& y, std::size_t classes);

// The weights of `rows` (indices into `weights`) scaled so that they sum to rows.size(): the
// fit then minimizes the weighted mean of the squared errors, in the units of the unweighted
// one. Empty when `weights` is; InputError "WHO has the sample weight 0 ..." when every
// one of `rows` has weight 0 (`who` names them: "iris.csv: every training row").
std::vector<double> rows_weights_with_unit_mean(const std::vector<double>& weights,
                                                const std::vector<std::size_t>& rows, const std::string& who);

// Puts the rows of `ds` whose weight is not 0 into `out`, in order, and returns true; returns
// false (out untouched) when no row weighs 0. Such rows take no part in a fit, neither as
// candidate centers nor in the split or the standardization: a weight of 0 is the row left
// out. `boundary` (a row index, e.g. where a separate validation file's rows begin) becomes
// its index among the rows kept.
bool drop_zero_weight_rows(const Dataset& ds, Dataset& out, std::size_t& boundary);

}  // namespace rbf::data
