// Backend parity for the validation score's sums (Backend::validation_sums): where a backend
// computes them itself they agree with scoring its predict_validation output on the host, for
// regression weights and for classes with offsets, with and without row weights, on every
// backend built in.
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "contracts/backend.hpp"
#include "tests/backend_parity_support.hpp"
#include "tests/parity_support.hpp"
#include "tests/validation_sums_reference.hpp"

using namespace rbf::test::parity;

namespace {

// Targets of the shape the trainer makes: k outputs with their own weights, and for
// classification a true class per row and an offset per score.
rbf::model::ValidationTargets make_targets(std::size_t nv, std::size_t k, bool classes, bool weighted) {
  rbf::model::ValidationTargets t;
  for (std::size_t i = 0; weighted && i < nv; ++i) t.row_weight.push_back(static_cast<double>(i % 4) * 0.5);
  for (std::size_t i = 0; i < nv * k; ++i) t.target.push_back(0.8 * std::cos(0.37 * static_cast<double>(i)));
  for (std::size_t j = 0; j < k; ++j) t.error_weight.push_back(0.5 + static_cast<double>(j * j));
  if (classes) {
    for (std::size_t i = 0; i < nv * k; ++i) t.class_offset.push_back(0.2 * std::sin(1.3 * static_cast<double>(i)));
    for (std::size_t i = 0; i < nv; ++i) t.classes.push_back(static_cast<long long>((i * 7) % k));
  }
  return t;
}

template <typename T>
void check_validation_sums(const std::string& which) {
  CAPTURE(which);
  const Problem p = make_problem(800, 4, 3, 123, 60, 7);  // 123 validation rows: not a multiple of the padding
  for (const int kind : {0, 1, 2, 3}) {
    const bool classes = kind % 2 == 1, weighted = kind >= 2;
    CAPTURE(classes);
    CAPTURE(weighted);
    auto b = make<T>(which);
    load(*b, p, kStoreAll);
    const rbf::model::ValidationTargets targets = make_targets(p.nv, p.k, classes, weighted);
    b->set_validation_targets(targets);
    std::vector<double> a;
    b->reset_to_bias(a);
    extend(*b, 10);
    for (const std::size_t columns : {std::size_t{0}, std::size_t{4}, std::size_t{10}}) {
      CAPTURE(columns);
      std::vector<double> w((columns + 1) * p.k);
      for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.4 * std::sin(0.9 * static_cast<double>(i) + 0.3);
      rbf::model::ValidationSums sums;
      const bool computed = b->validation_sums(w.data(), columns, sums);
      // The GPU backend scores where its predictions are; shards and the CPU leave it to the host.
      CHECK(computed == (which == "gpu"));
      if (!computed) continue;
      std::vector<double> pred;
      b->predict_validation(w.data(), columns, pred);
      const rbf::model::ValidationSums expected = rbf::test::reference_validation_sums(pred, targets, p.nv, p.k);
      CHECK(relative(sums.weighted_sse, expected.weighted_sse) < 1e-12);  // the same predictions, summed in another order
      CHECK(sums.correct == expected.correct);
      if (classes) CHECK(expected.correct > 0);
    }
  }
}

}  // namespace

RBF_BACKEND_CASES("validation sums agree with scoring predict_validation on the host", check_validation_sums)
