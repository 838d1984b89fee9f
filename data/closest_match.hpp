// "Did you mean" hints: the nearest of a set of words to a misspelt one.
#pragma once

#include <string>
#include <vector>

namespace rbf::data {

// The choice closest to `word` by edit distance when it is close enough to be a likely typo,
// else an empty string. Case, dashes and underscores do not count as differences. Used for
// hints on config keys, commands, flags and column names.
std::string closest_match(const std::string& word, const std::vector<std::string>& choices);

}  // namespace rbf::data
