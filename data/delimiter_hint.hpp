// The hint a CSV error gives when the header came out as one column: the likely delimiter.
#pragma once

#include <string>
#include <string_view>

namespace rbf::data {

// For a header line that `delimiter` split into a single column: "; the header has a single
// column, so the delimiter may be wrong: ..." naming the separator the line most likely uses
// (the most frequent of , ; tab | : outside quotes) and the --delimiter value that selects it;
// "" when the line holds none of them.
std::string delimiter_hint(std::string_view header_line, char delimiter);

}  // namespace rbf::data
