// k-means regions, overlapping part rows and partition-of-unity blend weights.
#include "model/partitions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "data/split.hpp"

namespace rbf::model {

namespace {

constexpr std::size_t kSampleRows = 20000;
constexpr int kLloydIterations = 25;

double squared_distance(const double* a, const double* b, std::size_t d) {
  double s = 0;
  for (std::size_t f = 0; f < d; ++f) {
    const double t = a[f] - b[f];
    s += t * t;
  }
  return s;
}

std::size_t nearest(const std::vector<double>& centres, std::size_t k, const double* row, std::size_t d) {
  std::size_t best = 0;
  double best_d = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < k; ++c) {
    const double s = squared_distance(row, centres.data() + c * d, d);
    if (s < best_d) {
      best_d = s;
      best = c;
    }
  }
  return best;
}

// k-means++: each next centre drawn with probability proportional to its squared distance.
std::vector<double> seed_centres(const std::vector<double>& x, std::size_t n, std::size_t d, std::size_t k,
                                 std::mt19937_64& rng) {
  std::vector<double> centres(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(d));
  std::vector<double> dist(n, std::numeric_limits<double>::infinity());
  for (std::size_t c = 1; c < k; ++c) {
    const double* last = centres.data() + (c - 1) * d;
    double total = 0;
    for (std::size_t i = 0; i < n; ++i) total += dist[i] = std::min(dist[i], squared_distance(x.data() + i * d, last, d));
    if (!(total > 0)) break;  // fewer distinct rows than centres
    double pick = std::uniform_real_distribution<double>(0.0, total)(rng);
    std::size_t i = 0;
    while (i + 1 < n && (pick -= dist[i]) > 0) ++i;
    centres.insert(centres.end(), x.begin() + static_cast<std::ptrdiff_t>(i * d),
                   x.begin() + static_cast<std::ptrdiff_t>((i + 1) * d));
  }
  return centres;
}

}  // namespace

PartitionPlan plan_partitions(const double* x, std::size_t n, std::size_t d, std::size_t parts, std::uint64_t seed) {
  const std::vector<std::size_t> sampled = data::sample_indices(n, kSampleRows, seed);
  const std::size_t m = sampled.size();
  std::vector<double> sample(m * d);
  for (std::size_t i = 0; i < m; ++i) std::copy_n(x + sampled[i] * d, d, sample.begin() + static_cast<std::ptrdiff_t>(i * d));
  std::mt19937_64 rng(seed);
  std::vector<double> centres = seed_centres(sample, m, d, std::min(parts, m), rng);
  std::size_t k = centres.size() / d;
  const std::size_t least = std::max<std::size_t>(30, m / (4 * std::max<std::size_t>(parts, 1)));
  std::vector<std::size_t> owner(m);
  for (int iteration = 0; iteration < kLloydIterations; ++iteration) {
    for (std::size_t i = 0; i < m; ++i) owner[i] = nearest(centres, k, sample.data() + i * d, d);
    std::vector<double> sums(k * d, 0.0);
    std::vector<std::size_t> count(k, 0);
    for (std::size_t i = 0; i < m; ++i) {
      ++count[owner[i]];
      for (std::size_t f = 0; f < d; ++f) sums[owner[i] * d + f] += sample[i * d + f];
    }
    // Too small a region makes a sub-model of too few rows: its centre goes, its rows join others.
    // The largest region stays whatever its size: there is always one part.
    const std::size_t largest = static_cast<std::size_t>(std::max_element(count.begin(), count.end()) - count.begin());
    std::vector<double> kept;
    for (std::size_t c = 0; c < k; ++c) {
      if (count[c] == 0 || (count[c] < least && c != largest)) continue;
      for (std::size_t f = 0; f < d; ++f) kept.push_back(sums[c * d + f] / static_cast<double>(count[c]));
    }
    const bool settled = kept.size() == centres.size() && kept == centres;
    centres = std::move(kept);
    k = centres.size() / d;
    if (settled) break;
  }
  PartitionPlan plan;
  plan.parts = k;
  plan.d = d;
  plan.centres = centres;
  plan.blend = std::min<std::size_t>(k, 4);
  std::vector<double> gaps;
  for (std::size_t c = 0; c < k; ++c) {
    double gap = std::numeric_limits<double>::infinity();
    for (std::size_t o = 0; o < k; ++o)
      if (o != c) gap = std::min(gap, std::sqrt(squared_distance(centres.data() + c * d, centres.data() + o * d, d)));
    if (std::isfinite(gap)) gaps.push_back(gap);
  }
  if (!gaps.empty()) {
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
    plan.width = std::max(kBlendWidthOfGap * gaps[gaps.size() / 2], 1e-6);
  }
  return plan;
}

void blend_weights(const PartitionPlan& plan, const double* row, std::vector<std::pair<std::size_t, double>>& out) {
  out.clear();
  for (std::size_t p = 0; p < plan.parts; ++p)
    out.emplace_back(p, squared_distance(row, plan.centres.data() + p * plan.d, plan.d));
  const std::size_t keep = std::min(plan.blend, out.size());
  std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(keep), out.end(),
                    [](const auto& a, const auto& b) { return a.second < b.second || (a.second == b.second && a.first < b.first); });
  out.resize(keep);
  // Relative to the nearest part's: exp never underflows to 0 for all of them.
  const double nearest_d = out.empty() ? 0.0 : out.front().second;
  const double scale = 1.0 / (2.0 * plan.width * plan.width);
  double total = 0;
  for (auto& entry : out) total += entry.second = std::exp(-(entry.second - nearest_d) * scale);
  for (auto& entry : out) entry.second /= total;
}

std::vector<std::vector<std::size_t>> part_rows(const PartitionPlan& plan, const double* x, std::size_t n) {
  std::vector<std::vector<std::size_t>> rows(plan.parts);
  std::vector<std::pair<std::size_t, double>> weights;
  for (std::size_t i = 0; i < n; ++i) {
    blend_weights(plan, x + i * plan.d, weights);
    for (const auto& entry : weights)
      if (entry.second >= kPartOverlapWeight) rows[entry.first].push_back(i);
  }
  return rows;
}

}  // namespace rbf::model
