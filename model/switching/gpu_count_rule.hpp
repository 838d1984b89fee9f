// How many GPUs `auto` spreads a run over when backend.gpu_devices does not say.
#pragma once

#include <cstddef>

namespace rbf::model {

// Gaussians per scoring pass (rows x candidates) each GPU of a sharded run should have: at
// about 2 T Gaussians per second (docs/BENCHMARKS.md) this is about 2 ms of pass per device
// and iteration, against the sharded backend's per-iteration sums (a handful of host round
// trips, a few tenths of a millisecond measured on one device), so a second GPU saves more
// than the sums cost from here on.
constexpr double kGaussiansPerAutoShard = 4294967296.0;  // 2^32

// The GPUs auto uses for `rows` x `candidates`: as many of the `visible` ones as each get
// kGaussiansPerAutoShard of the pass, at least 1.
std::size_t auto_gpu_count(std::size_t rows, std::size_t candidates, std::size_t visible);

}  // namespace rbf::model
