// Shared helper of the fuzz targets: a violated invariant aborts, which libFuzzer reports.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace rbf::fuzz {

// A property that must hold for every input the library accepted. std::abort (not an
// exception) so that no catch in the harness or the library can hide the failure.
inline void require(bool holds, const char* what) {
  if (holds) return;
  std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
  std::abort();
}

}  // namespace rbf::fuzz
