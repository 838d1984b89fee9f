// Maps string class labels to class indices with a stable, sorted order of class names, and
// reads each row's class index back.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "data/dataset.hpp"

namespace rbf::data {

// Returns the distinct labels sorted (by value when every label is a finite number, so
// "2" < "10"; byte-wise otherwise) and writes each label's index into `indices`.
std::vector<std::string> assign_class_indices(const std::vector<std::string_view>& labels,
                                              std::vector<double>& indices);

// The class index of each row of a classification dataset (its y, as integers): the labels
// that a stratified split or fold assignment deals by.
std::vector<std::size_t> class_of_rows(const Dataset& ds);

}  // namespace rbf::data
