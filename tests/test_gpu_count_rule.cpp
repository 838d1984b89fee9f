// How many GPUs auto spreads a run over when backend.gpu_devices does not say.
#include <doctest/doctest.h>

#include "model/switching/gpu_count_rule.hpp"

using rbf::model::auto_gpu_count;

TEST_CASE("gpu count rule: small runs stay on one GPU") {
  CHECK(auto_gpu_count(200000, 3000, 4) == 1);     // 0.6 G Gaussians per pass
  CHECK(auto_gpu_count(1000000, 4096, 4) == 1);    // 4.1 G: under two devices' worth
  CHECK(auto_gpu_count(0, 4096, 8) == 1);
}

TEST_CASE("gpu count rule: each further GPU needs its share of the pass") {
  CHECK(auto_gpu_count(2100000, 4096, 4) == 2);    // 8.6 G
  CHECK(auto_gpu_count(10000000, 4096, 4) == 4);   // 41 G: every visible device
  CHECK(auto_gpu_count(10000000, 4096, 2) == 2);
  CHECK(auto_gpu_count(10000000, 4096, 1) == 1);
  CHECK(auto_gpu_count(10000000, 4096, 0) == 1);   // no device listed: the caller's one
}

TEST_CASE("gpu count rule: a growth whose basis does not fit one GPU is spread until it does") {
  using rbf::model::gpus_for_memory;
  const double gib = 1024.0 * 1024.0 * 1024.0;
  CHECK(gpus_for_memory(8 * gib, 0.1 * gib, 70 * gib, 4) == 1);
  CHECK(gpus_for_memory(149 * gib, 0.1 * gib, 70 * gib, 4) == 3);   // 49.7 GiB each on three
  CHECK(gpus_for_memory(149 * gib, 0.1 * gib, 140 * gib, 4) == 2);
  CHECK(gpus_for_memory(149 * gib, 69 * gib, 70 * gib, 4) == 4);    // never fits: all of them
  CHECK(gpus_for_memory(149 * gib, 0, 70 * gib, 0) == 1);
  // The work rule alone keeps this run on one GPU (0.3 G Gaussians); its memory asks for two.
  CHECK(rbf::model::auto_gpu_count(100000, 3000, 4, gpus_for_memory(30 * gib, 0, 16 * gib, 4)) == 2);
  CHECK(rbf::model::auto_gpu_count(100000, 3000, 4) == 1);
}
