// Edit distance and the closest choice to a misspelt word, for "did you mean" hints.
#include "data/closest_match.hpp"

#include <algorithm>
#include <cctype>

namespace rbf::data {

namespace {

std::string lower(const std::string& word) {
  std::string out = word;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Damerau-Levenshtein (optimal string alignment): a swapped pair of letters counts as one edit.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

// Case, dashes and underscores do not count as differences: "max-nodes" means "max_nodes".
std::string normalized(const std::string& word) {
  std::string out = lower(word);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

}  // namespace

std::string closest_match(const std::string& word, const std::vector<std::string>& choices) {
  const std::string target = normalized(word);
  if (target.empty()) return std::string();
  // Allow about one edit per three letters, at least one and at most three.
  const std::size_t limit = std::max<std::size_t>(1, std::min<std::size_t>(3, target.size() / 3));
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const std::string& choice : choices) {
    const std::size_t distance = edit_distance(target, normalized(choice));
    if (distance < best_distance) {
      best_distance = distance;
      best = choice;
    }
  }
  return best;
}

}  // namespace rbf::data
