// Class-name ordering for classification targets: numeric labels sort as numbers.
#include "data/class_labels.hpp"

#include <algorithm>
#include <unordered_map>

#include "data/number_parse.hpp"

namespace rbf::data {

std::vector<std::string> assign_class_indices(const std::vector<std::string_view>& labels,
                                              std::vector<double>& indices) {
  std::unordered_map<std::string_view, std::size_t> index_of;
  std::vector<std::string_view> distinct;
  for (const auto label : labels) {
    if (index_of.emplace(label, 0).second) distinct.push_back(label);
  }

  bool all_numeric = true;
  std::vector<double> value(distinct.size());
  for (std::size_t i = 0; i < distinct.size() && all_numeric; ++i) {
    all_numeric = parse_number_field(distinct[i], value[i]) == NumberStatus::ok;
  }
  std::vector<std::size_t> order(distinct.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (all_numeric) {
    // Ties ("1" and "1.0") fall back to the text so the order never depends on input order.
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return value[a] != value[b] ? value[a] < value[b] : distinct[a] < distinct[b];
    });
  } else {
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return distinct[a] < distinct[b]; });
  }

  std::vector<std::string> names;
  names.reserve(order.size());
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    index_of[distinct[order[rank]]] = rank;
    names.emplace_back(distinct[order[rank]]);
  }
  indices.resize(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    indices[i] = static_cast<double>(index_of[labels[i]]);
  }
  return names;
}

std::vector<std::size_t> class_of_rows(const Dataset& ds) {
  std::vector<std::size_t> labels(ds.rows);
  for (std::size_t i = 0; i < ds.rows; ++i) labels[i] = static_cast<std::size_t>(ds.y[i]);
  return labels;
}

}  // namespace rbf::data
