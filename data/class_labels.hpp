// Maps string class labels to class indices with a stable, sorted order of class names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rbf::data {

// Returns the distinct labels sorted (by value when every label is a finite number, so
// "2" < "10"; byte-wise otherwise) and writes each label's index into `indices`.
std::vector<std::string> assign_class_indices(const std::vector<std::string_view>& labels,
                                              std::vector<double>& indices);

}  // namespace rbf::data
