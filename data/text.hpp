// Small text helpers shared by the layers above data/.
#pragma once

#include <string>

namespace rbf::data {

// `text` without leading and trailing spaces, tabs, carriage returns and line feeds.
std::string trim(const std::string& text);

}  // namespace rbf::data
