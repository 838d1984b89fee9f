// Small text helpers shared by the layers above data/.
#include "data/text.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace rbf::data {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::string();
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
}

std::string round_trip_text(double value) {
  char buf[32];
  // Any text of at most 15 significant digits reads back as the double nearest to it, so %.15g
  // is the shortest text wherever 15 digits or fewer suffice (%g drops trailing zeros). Below
  // the smallest normal double fewer digits are exact, so the search starts at one (5e-324).
  const int fewest = value != 0 && std::fabs(value) < std::numeric_limits<double>::min() ? 1 : 15;
  for (int digits = fewest; digits < 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
    if (std::strtod(buf, nullptr) == value) return buf;
  }
  std::snprintf(buf, sizeof buf, "%.17g", value);
  return buf;
}

}  // namespace rbf::data
