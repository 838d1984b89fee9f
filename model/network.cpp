// Network predictions in double precision on the host (deterministic, backend independent).
#include "model/network.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "data/errors.hpp"
#include "model/linear_terms.hpp"
#include "model/metrics.hpp"
#include "model/partitions.hpp"

namespace rbf::model {

namespace {

// Finite inputs far enough from the training data overflow the standardized values, the linear
// terms or the output scaling: such a row gets an error naming it and its farthest feature,
// never an inf or a NaN passed off as a prediction (or a class chosen among NaN scores).
void check_finite_outputs(const Network& net, const double* x, std::size_t rows, const std::vector<double>& out) {
  const std::size_t d = net.inputs, k = net.outputs;
  for (std::size_t i = 0; i < rows; ++i) {
    bool finite = true;
    for (std::size_t t = 0; t < k; ++t) finite = finite && std::isfinite(out[i * k + t]);
    if (finite) continue;
    std::size_t farthest = 0;
    double sigmas = -1;
    for (std::size_t f = 0; f < d; ++f) {
      const double z = std::fabs((x[i * d + f] - net.x_scaler.mean[f]) / net.x_scaler.scale[f]);
      if (!(z <= sigmas)) {
        sigmas = z;
        farthest = f;
      }
    }
    char text[160];
    if (std::isfinite(sigmas)) {
      std::snprintf(text, sizeof text, "is %.6g, %.3g standard deviations from the training data's mean",
                    x[i * d + farthest], sigmas);
    } else {
      std::snprintf(text, sizeof text, "is %.6g, more standard deviations from the training data's mean than a "
                    "double holds", x[i * d + farthest]);
    }
    throw InputError("data row " + std::to_string(i + 1) + ": the model's output is not a finite number: feature '" +
                     net.feature_names[farthest] + "' " + text + ", beyond what the model can compute");
  }
}

}  // namespace

namespace {

// A partitioned model's outputs: each part's predictions of the rows whose blend weight
// reaches it, weighted (model/partitions.hpp).
void predict_blended(const Network& net, const double* x, std::size_t rows, std::vector<double>& out) {
  const std::size_t d = net.inputs, k = net.outputs;
  PartitionPlan plan;
  plan.parts = net.parts.size();
  plan.d = d;
  plan.centres = net.part_centres;
  plan.width = net.part_width;
  plan.blend = net.part_blend;
  const std::vector<double> inverse_scale = net.x_scaler.inverse_scales();
  std::vector<std::vector<std::pair<std::size_t, double>>> weights(rows);
#pragma omp parallel
  {
    std::vector<double> standardized(d);  // this thread's row
#pragma omp for schedule(static)
    for (long i = 0; i < static_cast<long>(rows); ++i) {
      net.x_scaler.transform_row(x + static_cast<std::size_t>(i) * d, standardized.data(), inverse_scale);
      blend_weights(plan, standardized.data(), weights[static_cast<std::size_t>(i)]);
    }
  }
  std::vector<std::vector<std::size_t>> members(plan.parts);
  for (std::size_t i = 0; i < rows; ++i)
    for (const auto& entry : weights[i]) members[entry.first].push_back(i);
  out.assign(rows * k, 0.0);
  std::vector<double> part_x, part_out;
  for (std::size_t p = 0; p < plan.parts; ++p) {
    if (members[p].empty()) continue;
    part_x.resize(members[p].size() * d);
    for (std::size_t r = 0; r < members[p].size(); ++r)
      std::copy_n(x + members[p][r] * d, d, part_x.begin() + static_cast<std::ptrdiff_t>(r * d));
    net.parts[p].predict(part_x.data(), members[p].size(), part_out);
    for (std::size_t r = 0; r < members[p].size(); ++r) {
      const std::size_t i = members[p][r];
      double w = 0;
      for (const auto& entry : weights[i])
        if (entry.first == p) w = entry.second;
      for (std::size_t t = 0; t < k; ++t) out[i * k + t] += w * part_out[r * k + t];
    }
  }
}

}  // namespace

void Network::predict(const double* x, std::size_t rows, std::vector<double>& out) const {
  if (!parts.empty()) {
    predict_blended(*this, x, rows, out);
    return;
  }
  const std::size_t d = inputs, k = outputs, m = nodes();
  out.assign(rows * k, 0.0);
  // Each row standardized where it is used (the scaler's own row transform): a standardized
  // copy of X would double the memory of a large prediction.
  const std::vector<double> inverse_scale = x_scaler.inverse_scales();
  std::vector<double> gamma(m);
  for (std::size_t j = 0; j < m; ++j) gamma[j] = 1.0 / (2.0 * widths[j] * widths[j]);
#pragma omp parallel
  {
    std::vector<double> standardized(d);  // this thread's row
#pragma omp for schedule(static)
    for (long i = 0; i < static_cast<long>(rows); ++i) {
      x_scaler.transform_row(x + static_cast<std::size_t>(i) * d, standardized.data(), inverse_scale);
      const double* xi = standardized.data();
      double* oi = out.data() + static_cast<std::size_t>(i) * k;
      for (std::size_t t = 0; t < k; ++t) oi[t] = bias[t];
      add_linear_terms(xi, 1, d, linear, k, 1.0, oi);
      for (std::size_t j = 0; j < m; ++j) {
        const double* cj = centers.data() + j * d;
        double dist = 0;
        for (std::size_t f = 0; f < d; ++f) {
          const double diff = xi[f] - cj[f];
          dist += diff * diff;
        }
        const double phi = std::exp(-gamma[j] * dist);
        const double* wj = weights.data() + j * k;
        for (std::size_t t = 0; t < k; ++t) oi[t] += phi * wj[t];
      }
    }
  }
  if (task == data::Task::regression) y_scaler.inverse_transform(out.data(), rows);
  check_finite_outputs(*this, x, rows, out);
}

std::vector<std::size_t> Network::predict_classes(const double* x, std::size_t rows) const {
  std::vector<double> scores;
  predict(x, rows, scores);
  return predicted_classes(scores.data(), rows, outputs);
}

}  // namespace rbf::model
