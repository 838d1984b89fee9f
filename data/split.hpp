// Seeded, platform-independent train/validation split and sampling of row indices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rbf::data {

struct Split {
  std::vector<std::size_t> train;       // sorted ascending
  std::vector<std::size_t> validation;  // sorted ascending
};

// Holds out round(fraction * rows) rows (at least 1 when fraction > 0 and rows > 1, and
// never all rows). The same seed gives the same split on every platform and compiler.
Split train_validation_split(std::size_t rows, double fraction, std::uint64_t seed);

// For classification (`labels[i]` is row i's class): holds out as many rows as
// train_validation_split, drawn from each class in proportion to its size (largest
// remainders), so every class is in the validation rows about as often as in the data. A
// class keeps at least one training row. Seeded and platform independent likewise.
Split stratified_split(const std::vector<std::size_t>& labels, double fraction, std::uint64_t seed);

// The fold (0 .. folds-1) of each of `rows` rows for K-fold cross-validation: a seeded
// shuffle dealt round-robin, so fold sizes differ by at most one. With `labels` (one class
// per row) each class is dealt in turn, so every fold holds each class in proportion.
std::vector<std::size_t> fold_assignment(std::size_t rows, std::size_t folds, std::uint64_t seed,
                                         const std::vector<std::size_t>& labels = {});

// Every index of [0, n), in order.
std::vector<std::size_t> all_indices(std::size_t n);

// `count` distinct indices from [0, n) (all of them, in order, when count >= n), seeded
// and platform independent, sorted ascending.
std::vector<std::size_t> sample_indices(std::size_t n, std::size_t count, std::uint64_t seed);

// A small portable PRNG (SplitMix64) so results never depend on the standard library.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  double uniform();                            // [0, 1)
  std::uint64_t below(std::uint64_t bound);    // [0, bound), unbiased
  double normal();                             // standard normal (Box-Muller)
 private:
  std::uint64_t state_;
};

}  // namespace rbf::data
