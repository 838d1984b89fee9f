// The CPU backend's matrix-free scoring pass in every SIMD variant this machine runs: the same
// nodes as stored candidates, and results that do not depend on the thread count.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cpu/eigen_backend.hpp"
#include "cpu/simd_variant.hpp"
#include "tests/backend_parity_support.hpp"

using namespace rbf::test::parity;
using rbf::cpu::SimdVariant;

TEST_CASE_TEMPLATE("cpu matrix-free: every SIMD variant chooses the stored pass's nodes", T, float, double) {
  // Many rows (several kernel row blocks, none a multiple of a block) and a pool whose tiles
  // end part-way through a register block.
  const Problem p = make_problem(3001, 6, 2, 150, 101, 8);
  rbf::cpu::EigenBackend<T> stored_backend(2);
  const Growth stored = grow(stored_backend, p, 25, kStoreAll);
  for (SimdVariant v : rbf::cpu::supported_simd_variants()) {
    const std::string variant = rbf::cpu::simd_variant_name(v);
    CAPTURE(variant);
    rbf::cpu::EigenBackend<T> b(2);
    b.use_simd_variant(v);
    CHECK(b.simd_variant() == v);
    bool is_stored = true;
    const Growth g = grow(b, p, 25, 0.0, &is_stored);
    CHECK_FALSE(is_stored);
    CHECK(g.chosen == stored.chosen);
    const double tol = sizeof(T) == 4 ? 1e-5 : 1e-12;  // as in the parity suite's matrix-free check
    for (std::size_t t = 0; t < g.sse.size(); ++t) CHECK(relative(g.sse[t], stored.sse[t]) < tol);
  }
}

TEST_CASE_TEMPLATE("cpu matrix-free: results do not depend on the thread count", T, float, double) {
  const Problem p = make_problem(2100, 5, 1, 0, 90, 4);
  rbf::cpu::EigenBackend<T> one(1), three(3);
  const Growth a = grow(one, p, 20, 0.0);
  const Growth b = grow(three, p, 20, 0.0);
  CHECK(a.chosen == b.chosen);
  CHECK(a.sse == b.sse);  // bit for bit
}

TEST_CASE("cpu matrix-free: a variant this CPU cannot run is refused") {
  rbf::cpu::EigenBackend<float> b(1);
  CHECK(rbf::cpu::simd_variant_supported(b.simd_variant()));
  for (SimdVariant v : {SimdVariant::avx2, SimdVariant::avx512}) {
    if (!rbf::cpu::simd_variant_supported(v)) CHECK_THROWS(b.use_simd_variant(v));
  }
}
