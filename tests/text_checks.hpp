// Text checks shared by the tests (one definition, so test files can share a unity build).
#pragma once

#include <string>

namespace rbf::test {

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace rbf::test
