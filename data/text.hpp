// Small text helpers shared by the layers above data/.
#pragma once

#include <string>

namespace rbf::data {

// `text` without leading and trailing spaces, tabs, carriage returns and line feeds.
std::string trim(const std::string& text);

// The shortest of %.15g, %.16g and %.17g that reads back as exactly `value`, so a number
// written to a file loses nothing (1e9+123 is "1000000123", 0.1 is "0.1").
std::string round_trip_text(double value);

}  // namespace rbf::data
