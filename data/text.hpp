// Small text helpers shared by the layers above data/.
#pragma once

#include <string>

namespace rbf::data {

// `text` without leading and trailing spaces, tabs, carriage returns and line feeds.
std::string trim(const std::string& text);

// `text` with each control character (line breaks, tabs, escape) written as \xNN: a name
// from the user (a file, a column) shown in a generated document or script stays one line of
// plain text there.
std::string printable(const std::string& text);

// The shortest text that reads back as exactly `value` (strtod, the CSV reader, JSON and YAML
// parsers), so a number written for machines loses nothing: 1e9+123 is "1000000123", 0.1 is
// "0.1", -0 is "-0", the smallest denormal "5e-324". Every number rbfnet writes for a program
// to read (predictions, JSON, CSV logs, caches, configs) goes through it; NaN and infinities
// come out as "nan" and "inf", which writers that have no such values (JSON) handle first.
std::string round_trip_text(double value);

}  // namespace rbf::data
