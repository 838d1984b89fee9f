// Which CSV cells stand for a missing value: the empty cell and the markers pandas reads as NaN.
#pragma once

#include <string_view>

namespace rbf::data {

// pandas' default na_values (read_csv), so that a file pandas reads with gaps reads with the
// same gaps here, plus "?", the UCI repository's marker.
inline bool is_missing_cell(std::string_view text) {
  static constexpr std::string_view kMarkers[] = {
      "",     "NA",   "N/A",  "n/a",  "NaN",   "nan",   "-NaN", "-nan",  "NULL",  "null",    "None",
      "<NA>", "#N/A", "#NA",  "?",    "1.#IND", "-1.#IND", "1.#QNAN", "-1.#QNAN", "#N/A N/A"};
  for (const std::string_view marker : kMarkers)
    if (text == marker) return true;
  return false;
}

}  // namespace rbf::data
