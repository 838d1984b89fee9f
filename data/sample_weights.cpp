// Checks and derived forms of per-row sample weights.
#include "data/sample_weights.hpp"

#include <algorithm>
#include <cmath>

#include "data/csv_messages.hpp"
#include "data/errors.hpp"
#include "data/text.hpp"

namespace rbf::data {

void check_weights(const std::vector<double>& weights, const std::string& where) {
  double total = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double w = weights[i];
    if (!std::isfinite(w) || w < 0)
      throw InputError(where + ": row " + std::to_string(i + 1) + " has the weight " + round_trip_text(w) +
                       "; weights must be finite numbers of 0 or more");
    total += w;
  }
  if (total > 0 && std::isfinite(total)) return;
  throw InputError(where + (total > 0 ? " add up to more than a double holds; scale them down"
                                      : " are all zero, so no row would count; give some rows a positive weight"));
}

std::string negative_weight_message(double value, const std::string& column) {
  return "the sample weight " + round_trip_text(value) + " in column " + quote_for_message(column) +
         " is negative; weights must be 0 or more (0 leaves the row out of the fit)";
}

std::vector<double> balanced_class_weights(const std::vector<double>& y, std::size_t classes) {
  std::vector<double> count(classes, 0.0);
  for (const double label : y) count.at(static_cast<std::size_t>(label)) += 1;
  std::vector<double> weight(classes, 0.0);
  for (std::size_t c = 0; c < classes; ++c)
    if (count[c] > 0) weight[c] = static_cast<double>(y.size()) / (static_cast<double>(classes) * count[c]);
  return weight;
}

std::vector<double> rows_weights_with_unit_mean(const std::vector<double>& weights,
                                                const std::vector<std::size_t>& rows, const std::string& who) {
  if (weights.empty()) return {};
  std::vector<double> out(rows.size());
  double total = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) total += out[i] = weights[rows[i]];
  if (rows.empty()) return out;
  if (!(total > 0)) throw InputError(who + " has the sample weight 0, so none would count; give some a positive weight");
  const double scale = static_cast<double>(rows.size()) / total;
  for (double& w : out) w *= scale;
  return out;
}

bool drop_zero_weight_rows(const Dataset& ds, Dataset& out, std::size_t& boundary) {
  if (std::find(ds.weights.begin(), ds.weights.end(), 0.0) == ds.weights.end()) return false;
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < ds.weights.size(); ++i)
    if (ds.weights[i] != 0) kept.push_back(i);
  out = ds;
  out.rows = kept.size();
  out.x.resize(kept.size() * ds.features);
  out.y.resize(kept.size() * ds.targets);
  out.weights.resize(kept.size());
  std::size_t before = 0;  // kept rows before the boundary
  for (std::size_t r = 0; r < kept.size(); ++r) {
    const std::size_t i = kept[r];
    std::copy_n(ds.x.begin() + static_cast<std::ptrdiff_t>(i * ds.features), ds.features,
                out.x.begin() + static_cast<std::ptrdiff_t>(r * ds.features));
    std::copy_n(ds.y.begin() + static_cast<std::ptrdiff_t>(i * ds.targets), ds.targets,
                out.y.begin() + static_cast<std::ptrdiff_t>(r * ds.targets));
    out.weights[r] = ds.weights[i];
    for (std::size_t t = 0; t < ds.text_features.size(); ++t) out.text_features[t].cells[r] = ds.text_features[t].cells[i];
    if (i < boundary) ++before;
  }
  for (TextFeature& text : out.text_features) text.cells.resize(kept.size());
  boundary = boundary > 0 ? before : 0;
  return true;
}

}  // namespace rbf::data
