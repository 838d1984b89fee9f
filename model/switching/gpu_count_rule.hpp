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
// kGaussiansPerAutoShard of the pass, at least 1, and at least gpus_for_memory's count.
std::size_t auto_gpu_count(std::size_t rows, std::size_t candidates, std::size_t visible,
                           std::size_t memory_gpus = 1);

// The fewest GPUs, of `visible`, on which a growth fits: each holds its rows' share of
// `split_bytes` (the basis Q, cut by rows) and the whole of `whole_bytes` (what every shard
// keeps: the projection history), within `device_bytes`. `visible` when none fits (the memory
// plan then refuses the run, or auto stays on the CPU).
std::size_t gpus_for_memory(double split_bytes, double whole_bytes, double device_bytes, std::size_t visible);

}  // namespace rbf::model
