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

Split train_validation_split(std::size_t rows, double fraction, std::uint64_t seed) {
  if (!(fraction >= 0.0 && fraction < 1.0)) {
    throw InputError("the validation fraction " + std::to_string(fraction) + " is outside the allowed range [0, 1)");
  }
  std::size_t held_out = static_cast<std::size_t>(std::llround(fraction * static_cast<double>(rows)));
  if (rows <= 1) {
    held_out = 0;
  } else {
    if (fraction > 0.0) held_out = std::max<std::size_t>(held_out, 1);
    held_out = std::min(held_out, rows - 1);
  }

  // Partial Fisher-Yates: the first `held_out` places get a uniformly random subset.
  std::vector<std::size_t> order(rows);
  std::iota(order.begin(), order.end(), std::size_t{0});
  SplitMix64 rng(seed);
  for (std::size_t i = 0; i < held_out; ++i) {
    std::swap(order[i], order[i + rng.below(rows - i)]);
  }
  Split split;
  split.validation.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(held_out));
  split.train.assign(order.begin() + static_cast<std::ptrdiff_t>(held_out), order.end());
  std::sort(split.validation.begin(), split.validation.end());
  std::sort(split.train.begin(), split.train.end());
  return split;
}

std::vector<std::size_t> sample_indices(std::size_t n, std::size_t count, std::uint64_t seed) {
  std::vector<std::size_t> out;
  if (count >= n) {
    out.resize(n);
    std::iota(out.begin(), out.end(), std::size_t{0});
    return out;
  }
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
