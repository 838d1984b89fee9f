// Where a partitioned model's parts lie and how their predictions blend (trainer.partitions).
//
// The standardized inputs are split by k-means into K regions. A part's training rows are the
// rows its blend weight reaches (its region plus an overlap margin), so that neighbouring
// sub-models are fitted where both count. A prediction is the partition of unity
//   f(x) = sum_p pi_p(x) f_p(x),  pi_p(x) = g_p(x) / sum_q g_q(x),  g_p(x) = exp(-||x - c_p||^2 / (2 w^2))
// over the `blend` parts nearest x (the others' g are negligible there), continuous in x.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace rbf::model {

struct PartitionPlan {
  std::size_t parts = 0, d = 0;
  std::vector<double> centres;  // parts x d, in the standardized inputs of the whole model
  double width = 1;             // w of the blend weights
  std::size_t blend = 1;        // the nearest parts a prediction blends
};

// The smallest share of a part's blend weight that puts a row among its training rows.
inline constexpr double kPartOverlapWeight = 0.05;
// The blend width as a share of the median distance between neighbouring centres: narrower
// blends keep each part's rows near its region (between two parts at distance g, the weight
// moves from 5% to 95% over about 1.5 g x this share, and a part's rows reach that far).
inline constexpr double kBlendWidthOfGap = 0.25;

// K centres by k-means (k-means++ seeding, Lloyd's iterations) on at most 20,000 sampled rows of
// x (n x d standardized, row-major), seeded; a centre left with fewer than max(30, n / (4 K))
// nearest rows is dropped, so K can come out smaller. The blend width is kBlendWidthOfGap of
// the median distance from a centre to its nearest other centre.
PartitionPlan plan_partitions(const double* x, std::size_t n, std::size_t d, std::size_t parts, std::uint64_t seed);

// The blend weights pi_p(row) of the nearest parts, (part, weight) pairs summing to 1.
void blend_weights(const PartitionPlan& plan, const double* row, std::vector<std::pair<std::size_t, double>>& out);

// Each part's training rows: those whose blend weight for it is at least kPartOverlapWeight.
std::vector<std::vector<std::size_t>> part_rows(const PartitionPlan& plan, const double* x, std::size_t n);

}  // namespace rbf::model
