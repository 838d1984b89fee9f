// Tests of the standardizer, the seeded split and sampling, SplitMix64, Friedman #1 and Mackey-Glass data.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "data/errors.hpp"
#include "data/scaler.hpp"
#include "data/split.hpp"
#include "data/synthetic.hpp"

using rbf::data::make_friedman1;
using rbf::data::make_mackey_glass;
using rbf::data::sample_indices;
using rbf::data::Split;
using rbf::data::SplitMix64;
using rbf::data::Standardizer;
using rbf::data::train_validation_split;

// ---------------------------------------------------------------------------------------------
// Standardizer

TEST_CASE("scaler: fits mean and population standard deviation on the chosen rows only") {
  // Rows 0 and 2 are the training rows; row 1 is far away and must not influence the fit.
  const std::vector<double> x = {1,    10,     //
                                 1000, -1000,  //
                                 3,    30};
  const Standardizer s = Standardizer::fit(x.data(), 3, 2, {0, 2});
  REQUIRE(s.columns() == 2);
  CHECK(s.mean[0] == doctest::Approx(2));
  CHECK(s.mean[1] == doctest::Approx(20));
  CHECK(s.scale[0] == doctest::Approx(1));   // population std of {1, 3}
  CHECK(s.scale[1] == doctest::Approx(10));  // population std of {10, 30}
  CHECK_FALSE(s.constant[0]);

  std::vector<double> copy = x;
  s.transform(copy.data(), 3);
  CHECK(copy[0] == doctest::Approx(-1));
  CHECK(copy[5] == doctest::Approx(1));
  CHECK(copy[2] == doctest::Approx(998));
}

TEST_CASE("scaler: all rows when no indices are given") {
  const std::vector<double> x = {1, 2, 3, 4};
  const Standardizer s = Standardizer::fit(x.data(), 4, 1);
  CHECK(s.mean[0] == doctest::Approx(2.5));
  CHECK(s.scale[0] == doctest::Approx(std::sqrt(1.25)));
}

TEST_CASE("scaler: a constant column keeps scale 1 and is flagged, never divided by zero") {
  const std::vector<double> x = {5, 1, 5, 2, 5, 3};
  const Standardizer s = Standardizer::fit(x.data(), 3, 2);
  CHECK(s.constant[0]);
  CHECK(s.scale[0] == 1.0);
  CHECK(s.mean[0] == 5.0);
  CHECK_FALSE(s.constant[1]);
  std::vector<double> copy = x;
  s.transform(copy.data(), 3);
  CHECK(copy[0] == 0.0);
  CHECK(copy[2] == 0.0);
  for (const double v : copy) CHECK(std::isfinite(v));
}

TEST_CASE("scaler: rounding noise on a large constant counts as constant") {
  const double big = 1e9;
  const std::vector<double> x = {big, std::nextafter(big, 2e9), big};
  const Standardizer s = Standardizer::fit(x.data(), 3, 1);
  CHECK(s.constant[0]);
  CHECK(s.scale[0] == 1.0);
}

TEST_CASE("scaler: inverse_transform undoes transform") {
  const std::vector<double> x = {0.5, -3, 100, 2.25, 7, 101, -1, 4, 99.5, 8, 0, 100};
  const Standardizer s = Standardizer::fit(x.data(), 4, 3, {1, 2, 3});
  std::vector<double> copy = x;
  s.transform(copy.data(), 4);
  CHECK(copy != x);
  s.inverse_transform(copy.data(), 4);
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(copy[i] == doctest::Approx(x[i]));
}

TEST_CASE("scaler: identity changes nothing") {
  std::vector<double> x = {1, 2, 3, 4};
  const Standardizer s = Standardizer::identity(2);
  s.transform(x.data(), 2);
  CHECK(x == std::vector<double>{1, 2, 3, 4});
  CHECK(s.constant == std::vector<bool>{false, false});
}

// ---------------------------------------------------------------------------------------------
// SplitMix64

TEST_CASE("SplitMix64 matches the reference sequence") {
  SplitMix64 rng(0);
  CHECK(rng.next() == 0xE220A8397B1DCDAFull);
  CHECK(rng.next() == 0x6E789E6AA1B965F4ull);
}

TEST_CASE("SplitMix64: uniform below 1, below() in range and unbiased, normal standardized") {
  SplitMix64 rng(123);
  constexpr int kDraws = 60000;
  std::vector<int> counts(3, 0);
  double sum = 0, sum_squares = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double u = rng.uniform();
    CHECK((u >= 0.0 && u < 1.0));
    const std::uint64_t k = rng.below(3);
    REQUIRE(k < 3);
    ++counts[k];
    const double z = rng.normal();
    sum += z;
    sum_squares += z * z;
  }
  for (const int c : counts) CHECK(std::abs(c - kDraws / 3) < 600);  // ~5 standard deviations
  CHECK(std::abs(sum / kDraws) < 0.03);
  CHECK(sum_squares / kDraws == doctest::Approx(1.0).epsilon(0.03));
  CHECK(rng.below(1) == 0);
  CHECK(rng.below(0) == 0);
}

// ---------------------------------------------------------------------------------------------
// Train/validation split

namespace {

void check_partition(const Split& split, std::size_t rows) {
  CHECK(std::is_sorted(split.train.begin(), split.train.end()));
  CHECK(std::is_sorted(split.validation.begin(), split.validation.end()));
  std::vector<std::size_t> all = split.train;
  all.insert(all.end(), split.validation.begin(), split.validation.end());
  std::sort(all.begin(), all.end());
  REQUIRE(all.size() == rows);
  for (std::size_t i = 0; i < rows; ++i) CHECK(all[i] == i);  // disjoint and complete
}

}  // namespace

TEST_CASE("split: sizes, disjoint and complete") {
  const Split split = train_validation_split(1000, 0.2, 42);
  CHECK(split.validation.size() == 200);
  CHECK(split.train.size() == 800);
  check_partition(split, 1000);
  check_partition(train_validation_split(7, 0.5, 1), 7);
  CHECK(train_validation_split(7, 0.5, 1).validation.size() == 4);  // round(3.5) = 4
}

TEST_CASE("split: stratified holds out each class in proportion and keeps one training row per class") {
  // 60 rows of class 0, 30 of class 1, 9 of class 2, 1 of class 3 (which must stay in training).
  std::vector<std::size_t> labels;
  for (std::size_t c : {0, 1, 2, 3})
    for (std::size_t i = 0; i < std::vector<std::size_t>{60, 30, 9, 1}[c]; ++i) labels.push_back(c);
  const Split s = rbf::data::stratified_split(labels, 0.2, 7);
  CHECK(s.validation.size() == train_validation_split(labels.size(), 0.2, 7).validation.size());
  CHECK(s.train.size() + s.validation.size() == labels.size());
  std::vector<std::size_t> held(4, 0);
  for (std::size_t r : s.validation) ++held[labels[r]];
  CHECK(held == std::vector<std::size_t>{12, 6, 2, 0});
  CHECK(std::is_sorted(s.validation.begin(), s.validation.end()));
  CHECK(std::is_sorted(s.train.begin(), s.train.end()));
  const Split again = rbf::data::stratified_split(labels, 0.2, 7);
  CHECK(again.validation == s.validation);
  CHECK(rbf::data::stratified_split(labels, 0.0, 7).validation.empty());
}

TEST_CASE("split: the same seed gives the same split, another seed another") {
  const Split a = train_validation_split(500, 0.3, 9);
  const Split b = train_validation_split(500, 0.3, 9);
  const Split c = train_validation_split(500, 0.3, 10);
  CHECK(a.validation == b.validation);
  CHECK(a.train == b.train);
  CHECK(a.validation != c.validation);
}

TEST_CASE("split: platform-independent golden values") {
  // Computed independently from the SplitMix64 reference and a partial Fisher-Yates shuffle.
  CHECK(train_validation_split(10, 0.3, 42).validation == std::vector<std::size_t>{2, 3, 4});
  CHECK(train_validation_split(20, 0.25, 7).validation == std::vector<std::size_t>{2, 3, 7, 14, 15});
}

TEST_CASE("split: fraction 0 keeps every row for training") {
  const Split split = train_validation_split(50, 0.0, 3);
  CHECK(split.validation.empty());
  CHECK(split.train.size() == 50);
  check_partition(split, 50);
}

TEST_CASE("split: at least one row held out, never all") {
  CHECK(train_validation_split(10, 0.001, 1).validation.size() == 1);
  CHECK(train_validation_split(2, 0.99, 1).validation.size() == 1);
  CHECK(train_validation_split(1, 0.5, 1).validation.empty());
  CHECK(train_validation_split(0, 0.5, 1).train.empty());
}

TEST_CASE("split: a fraction below 0, from 1 up, or NaN is an input error") {
  CHECK_THROWS_AS(train_validation_split(10, -0.1, 1), rbf::InputError);
  CHECK_THROWS_AS(train_validation_split(10, 1.0, 1), rbf::InputError);
  CHECK_THROWS_AS(train_validation_split(10, std::nan(""), 1), rbf::InputError);
}

// ---------------------------------------------------------------------------------------------
// sample_indices

TEST_CASE("sample_indices: distinct, sorted, in range, seeded") {
  for (const std::size_t count : {5u, 300u}) {  // the small-sample and the shuffle paths
    const std::vector<std::size_t> s = sample_indices(1000, count, 11);
    CHECK(s.size() == count);
    CHECK(std::is_sorted(s.begin(), s.end()));
    CHECK(std::adjacent_find(s.begin(), s.end()) == s.end());
    CHECK(s.back() < 1000);
    CHECK(s == sample_indices(1000, count, 11));
    CHECK(s != sample_indices(1000, count, 12));
  }
  CHECK(sample_indices(1000, 5, 3) == std::vector<std::size_t>{366, 392, 503, 573, 929});
  CHECK(sample_indices(10, 4, 3) == std::vector<std::size_t>{0, 2, 3, 4});
}

TEST_CASE("sample_indices: all rows in order when count >= n") {
  CHECK(sample_indices(4, 4, 1) == std::vector<std::size_t>{0, 1, 2, 3});
  CHECK(sample_indices(3, 10, 1) == std::vector<std::size_t>{0, 1, 2});
  CHECK(sample_indices(0, 10, 1).empty());
  CHECK(sample_indices(10, 0, 1).empty());
}

// ---------------------------------------------------------------------------------------------
// Friedman #1

TEST_CASE("friedman1: shape, names, ranges and basic statistics") {
  const auto d = make_friedman1(20000, 7, 1.0, 5);
  CHECK(d.rows == 20000);
  CHECK(d.features == 7);
  CHECK(d.targets == 1);
  CHECK(d.task == rbf::data::Task::regression);
  CHECK(d.x.size() == 20000 * 7);
  CHECK(d.y.size() == 20000);
  CHECK(d.feature_names == std::vector<std::string>{"x1", "x2", "x3", "x4", "x5", "x6", "x7"});
  CHECK(d.target_names == std::vector<std::string>{"y"});
  CHECK(*std::min_element(d.x.begin(), d.x.end()) >= 0.0);
  CHECK(*std::max_element(d.x.begin(), d.x.end()) < 1.0);
  double mean = 0;
  for (const double v : d.y) mean += v;
  mean /= static_cast<double>(d.rows);
  CHECK(mean == doctest::Approx(14.41).epsilon(0.01));  // E[y] = 10*0.5247 + 20/12 + 7.5
}

TEST_CASE("friedman1: reproducible from the seed, and without noise the formula holds exactly") {
  const auto a = make_friedman1(100, 5, 0.0, 3);
  const auto b = make_friedman1(100, 5, 0.0, 3);
  CHECK(a.x == b.x);
  CHECK(a.y == b.y);
  CHECK(a.x != make_friedman1(100, 5, 0.0, 4).x);
  const double* x = a.row(17);
  const double kPi = std::acos(-1.0);
  const double expected = 10 * std::sin(kPi * x[0] * x[1]) + 20 * (x[2] - 0.5) * (x[2] - 0.5) + 10 * x[3] + 5 * x[4];
  CHECK(a.y[17] == doctest::Approx(expected));
  // The noise level changes y but not x.
  CHECK(make_friedman1(100, 5, 2.0, 3).x == a.x);
}

TEST_CASE("friedman1: fewer than 5 features is an input error") {
  CHECK_THROWS_AS(make_friedman1(10, 4), rbf::InputError);
}

// ---------------------------------------------------------------------------------------------
// Mackey-Glass

TEST_CASE("mackey_glass: bounded, deterministic, and each target is the series six steps on") {
  const auto a = make_mackey_glass(1500);
  CHECK(a.rows == 1500);
  CHECK(a.features == 4);
  CHECK(a.targets == 1);
  CHECK(a.task == rbf::data::Task::regression);
  CHECK(a.feature_names == std::vector<std::string>{"x(t-18)", "x(t-12)", "x(t-6)", "x(t)"});
  CHECK(a.target_names == std::vector<std::string>{"x(t+6)"});
  REQUIRE(a.x.size() == 1500 * 4);
  REQUIRE(a.y.size() == 1500);
  // The tau = 17 attractor stays within about [0.2, 1.4] and spans most of it (a chaotic
  // series, not a decay to the fixed point x = 1).
  CHECK(*std::min_element(a.x.begin(), a.x.end()) > 0.2);
  CHECK(*std::max_element(a.x.begin(), a.x.end()) < 1.4);
  CHECK(*std::min_element(a.y.begin(), a.y.end()) < 0.6);
  CHECK(*std::max_element(a.y.begin(), a.y.end()) > 1.2);
  const auto b = make_mackey_glass(1500, 0.0, 99);  // without noise the seed does not matter
  CHECK(a.x == b.x);
  CHECK(a.y == b.y);
  // Row i is time t = 118 + i: its target x(t+6) is row i+6's x(t), its x(t) is row i+6's
  // x(t-6), row i+12's x(t-12) and row i+18's x(t-18). Exactly: the same sampled value.
  for (std::size_t i = 0; i + 18 < a.rows; i += 37) {
    CHECK(a.y[i] == a.row(i + 6)[3]);
    CHECK(a.row(i)[3] == a.row(i + 6)[2]);
    CHECK(a.row(i)[3] == a.row(i + 12)[1]);
    CHECK(a.row(i)[3] == a.row(i + 18)[0]);
  }
  // Noise is added to the series itself, so the embedding holds with it; it is seeded.
  const auto n1 = make_mackey_glass(200, 0.05, 7);
  CHECK(n1.x == make_mackey_glass(200, 0.05, 7).x);
  CHECK(n1.x != make_mackey_glass(200, 0.05, 8).x);
  CHECK(n1.x != make_mackey_glass(200).x);
  for (std::size_t i = 0; i + 6 < n1.rows; ++i) CHECK(n1.y[i] == n1.row(i + 6)[3]);
  CHECK_THROWS_AS(make_mackey_glass(10, -1.0), rbf::InputError);
}
