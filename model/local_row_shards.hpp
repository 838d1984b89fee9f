// An in-process row-shard group: K RowShards whose sums meet in host memory (CPU shards, and
// several shards on one GPU), added in shard order so that every shard gets the same bits.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "contracts/row_shards.hpp"

namespace rbf::model {

// The group's K shards, index 0..K-1 in order. Each shard's sum() must be called from its own
// thread (the K shards' calls meet at a barrier); abort() may be called from any thread and
// wakes every waiting sum, which then throws ShardGroupAborted, as does every later sum.
std::vector<std::shared_ptr<RowShards>> make_local_row_shards(std::size_t count);

}  // namespace rbf::model
