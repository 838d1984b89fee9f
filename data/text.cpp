// Small text helpers shared by the layers above data/.
#include "data/text.hpp"

#include <cstdio>
#include <cstdlib>

namespace rbf::data {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::string();
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::string round_trip_text(double value) {
  char buf[32];
  for (int digits = 15; digits < 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
    if (std::strtod(buf, nullptr) == value) return buf;
  }
  std::snprintf(buf, sizeof buf, "%.17g", value);
  return buf;
}

}  // namespace rbf::data
