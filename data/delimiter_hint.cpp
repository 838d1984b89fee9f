// Guessing the delimiter of a file read as one column (data/delimiter_hint.hpp).
#include "data/delimiter_hint.hpp"

#include <cstddef>

namespace rbf::data {

namespace {

// The separators files are seen with; auto-detection (csv_tokenizer.cpp) tries the first three.
constexpr char kSeparators[] = {',', ';', '\t', '|', ':'};

// How --delimiter (and data.delimiter) spells `c`.
std::string flag_value(char c) { return c == '\t' ? "tab" : std::string("'") + c + "'"; }

}  // namespace

std::string delimiter_hint(std::string_view header_line, char delimiter) {
  char likely = 0;
  std::size_t most = 0;
  for (const char candidate : kSeparators) {
    if (candidate == delimiter) continue;
    std::size_t count = 0;
    bool in_quotes = false;
    for (const char c : header_line) {
      if (c == '"') in_quotes = !in_quotes;
      count += !in_quotes && c == candidate;
    }
    if (count > most) {
      most = count;
      likely = candidate;
    }
  }
  if (likely == 0) return "";  // a true one-column file, or one split by spaces (never a delimiter)
  return "; the header has a single column, so the delimiter may be wrong: try --delimiter " + flag_value(likely) +
         " (the header line holds " + std::to_string(most) + " of them)";
}

}  // namespace rbf::data
