// Backend::add_and_update against add_node followed by update: the same nodes, h, ||u|| and a
// on every backend, with Phi_C stored and computed on the fly (on the GPU, the one-wait path
// of gpu/cuda_iteration.cpp against the two steps, which must agree bit for bit). And
// Backend::reserve_nodes, a hint that changes no result, whatever it asks for.
#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "contracts/backend.hpp"
#include "tests/backend_parity_support.hpp"

using namespace rbf::test::parity;

namespace {

template <typename T>
void check_add_and_update(const std::string& which) {
  CAPTURE(which);
  const Problem p = make_problem(700, 3, 2, 50, 80, 11);
  for (const double budget : {kStoreAll, 0.0}) {
    CAPTURE(budget);
    auto one = make<T>(which), two = make<T>(which);
    load(*one, p, budget);
    load(*two, p, budget);
    std::vector<double> a1, a2, h1, h2;
    one->reset_to_bias(a1);
    two->reset_to_bias(a2);
    for (int i = 0; i < 40; ++i) {
      CAPTURE(i);
      const rbf::model::Selection s1 = one->select_ols(0.0, kTol), s2 = two->select_ols(0.0, kTol);
      REQUIRE(s1.found);
      REQUIRE(s2.found);
      REQUIRE(s1.index == s2.index);
      typename rbf::model::Backend<T>::PhaseTimes times;
      const double n1 = one->add_and_update(s1.index, kTol, h1, true, a1, times);
      const double n2 = two->add_node(s2.index, kTol, h2);
      if (n2 > 0) two->update(true, a2);
      CHECK(n1 == n2);
      CHECK(h1 == h2);
      CHECK(a1 == a2);
      CHECK(times.add_ms >= 0.0);
      CHECK(times.update_ms >= 0.0);
    }
    CHECK(one->nodes() == two->nodes());
    CHECK(one->reorthogonalizations() == two->reorthogonalizations());
  }
}

template <typename T>
void check_reserve_nodes(const std::string& which) {
  CAPTURE(which);
  const Problem p = make_problem(600, 3, 1, 40, 90, 5);
  const Growth plain = [&] {
    auto b = make<T>(which);
    return grow(*b, p, 70, 0.0);
  }();
  // 70 nodes: past the GPU's first basis allocation (64 columns) and past the smaller hint.
  REQUIRE(plain.chosen.size() == 70);
  // Fewer nodes than grown (the basis grows past the hint), as many, and more than there are
  // candidates.
  for (const std::size_t hint : {std::size_t{10}, std::size_t{70}, std::size_t{1} << 40}) {
    CAPTURE(hint);
    auto b = make<T>(which);
    load(*b, p, 0.0);
    b->reserve_nodes(hint);
    const Growth reserved = [&] {
      std::vector<double> a;
      b->reset_to_bias(a);
      return extend(*b, 70);
    }();
    CHECK(reserved.chosen == plain.chosen);
    CHECK(reserved.sse == plain.sse);
  }
}

}  // namespace

RBF_BACKEND_CASES("add_and_update gives what add_node then update give", check_add_and_update)
RBF_BACKEND_CASES("reserve_nodes changes no result of the growth", check_reserve_nodes)
