// SplitMix64 and the seeded splits/samples built on it: integer-only, so every platform agrees.
#include "data/split.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <unordered_set>

#include "data/errors.hpp"

namespace rbf::data {

std::uint64_t SplitMix64::next() {
  // Steele, Lea & Flood (2014); the constants are those of the reference implementation.
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double SplitMix64::uniform() {
  // The top 53 bits fill a double's mantissa exactly: uniform on a grid of 2^-53 in [0, 1).
  return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0);
}

std::uint64_t SplitMix64::below(std::uint64_t bound) {
  if (bound <= 1) return 0;
  // Reject the lowest (2^64 mod bound) values so every residue is equally likely.
  const std::uint64_t threshold = (0 - bound) % bound;
  for (;;) {
    const std::uint64_t r = next();
    if (r >= threshold) return r % bound;
  }
}

double SplitMix64::normal() {
  const double u1 = 1.0 - uniform();  // (0, 1]: log stays finite
  const double u2 = uniform();
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

namespace {

// round(fraction * rows), at least 1 when fraction > 0 and rows > 1, never every row.
std::size_t held_out_count(std::size_t rows, double fraction) {
  if (!(fraction >= 0.0 && fraction < 1.0)) {
    throw InputError("the validation fraction " + std::to_string(fraction) + " is outside the allowed range [0, 1)");
  }
  if (rows <= 1) return 0;
  std::size_t held_out = static_cast<std::size_t>(std::llround(fraction * static_cast<double>(rows)));
  if (fraction > 0.0) held_out = std::max<std::size_t>(held_out, 1);
  return std::min(held_out, rows - 1);
}

// Moves a uniformly random subset of `count` entries of `order` to its front (partial
// Fisher-Yates).
void shuffle_front(std::vector<std::size_t>& order, std::size_t count, SplitMix64& rng) {
  for (std::size_t i = 0; i < count; ++i) std::swap(order[i], order[i + rng.below(order.size() - i)]);
}

}  // namespace

Split train_validation_split(std::size_t rows, double fraction, std::uint64_t seed) {
  const std::size_t held_out = held_out_count(rows, fraction);

  // Partial Fisher-Yates: the first `held_out` places get a uniformly random subset.
  std::vector<std::size_t> order(rows);
  std::iota(order.begin(), order.end(), std::size_t{0});
  SplitMix64 rng(seed);
  shuffle_front(order, held_out, rng);
  Split split;
  split.validation.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(held_out));
  split.train.assign(order.begin() + static_cast<std::ptrdiff_t>(held_out), order.end());
  std::sort(split.validation.begin(), split.validation.end());
  std::sort(split.train.begin(), split.train.end());
  return split;
}

Split stratified_split(const std::vector<std::size_t>& labels, double fraction, std::uint64_t seed) {
  const std::size_t rows = labels.size();
  const std::size_t held_out = held_out_count(rows, fraction);
  std::vector<std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < rows; ++i) {
    if (labels[i] >= members.size()) members.resize(labels[i] + 1);
    members[labels[i]].push_back(i);
  }
  // Each class's share, floored; the rows left go to the largest remainders (the lower class
  // on a tie), never taking a class's last training row.
  const std::size_t classes = members.size();
  std::vector<std::size_t> take(classes, 0);
  std::vector<double> remainder(classes, 0.0);
  std::size_t given = 0;
  for (std::size_t c = 0; c < classes; ++c) {
    const double share = static_cast<double>(held_out) * static_cast<double>(members[c].size()) / static_cast<double>(rows);
    const std::size_t limit = members[c].empty() ? 0 : members[c].size() - 1;
    take[c] = std::min(static_cast<std::size_t>(share), limit);
    remainder[c] = share - static_cast<double>(take[c]);
    given += take[c];
  }
  std::vector<std::size_t> by_remainder(classes);
  std::iota(by_remainder.begin(), by_remainder.end(), std::size_t{0});
  std::stable_sort(by_remainder.begin(), by_remainder.end(),
                   [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (bool progress = true; given < held_out && progress;) {
    progress = false;
    for (std::size_t c : by_remainder) {
      if (given == held_out) break;
      if (take[c] + 1 < members[c].size()) {
        ++take[c];
        ++given;
        progress = true;
      }
    }
  }
  SplitMix64 rng(seed);
  Split split;
  for (std::size_t c = 0; c < classes; ++c) {
    shuffle_front(members[c], take[c], rng);
    split.validation.insert(split.validation.end(), members[c].begin(),
                            members[c].begin() + static_cast<std::ptrdiff_t>(take[c]));
    split.train.insert(split.train.end(), members[c].begin() + static_cast<std::ptrdiff_t>(take[c]),
                       members[c].end());
  }
  std::sort(split.validation.begin(), split.validation.end());
  std::sort(split.train.begin(), split.train.end());
  return split;
}

std::vector<std::size_t> fold_assignment(std::size_t rows, std::size_t folds, std::uint64_t seed,
                                         const std::vector<std::size_t>& labels) {
  std::vector<std::size_t> fold(rows, 0);
  if (folds == 0) return fold;
  const std::size_t classes = labels.empty() ? 1 : *std::max_element(labels.begin(), labels.end()) + 1;
  std::vector<std::vector<std::size_t>> members(classes);
  for (std::size_t i = 0; i < rows; ++i) members[labels.empty() ? 0 : labels[i]].push_back(i);
  SplitMix64 rng(seed);
  std::size_t next = 0;  // carried from class to class, so the folds stay within one row of each other
  for (std::vector<std::size_t>& rows_of_class : members) {
    shuffle_front(rows_of_class, rows_of_class.size(), rng);
    for (std::size_t row : rows_of_class) {
      fold[row] = next;
      next = (next + 1) % folds;
    }
  }
  return fold;
}

std::vector<std::size_t> all_indices(std::size_t n) {
  std::vector<std::size_t> out(n);
  std::iota(out.begin(), out.end(), std::size_t{0});
  return out;
}

std::vector<std::size_t> sample_indices(std::size_t n, std::size_t count, std::uint64_t seed) {
  if (count >= n) return all_indices(n);
  std::vector<std::size_t> out;
  SplitMix64 rng(seed);
  if (count <= n / 8) {
    // Floyd's algorithm: O(count) memory when a small sample is drawn from many rows.
    std::unordered_set<std::size_t> chosen;
    chosen.reserve(count * 2);
    for (std::size_t j = n - count; j < n; ++j) {
      const std::size_t t = static_cast<std::size_t>(rng.below(j + 1));
      const std::size_t pick = chosen.count(t) ? j : t;  // j cannot be chosen yet
      chosen.insert(pick);
      out.push_back(pick);
    }
  } else {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    for (std::size_t i = 0; i < count; ++i) std::swap(order[i], order[i + rng.below(n - i)]);
    out.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace rbf::data
