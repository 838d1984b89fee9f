// Row sharding: where a backend's rows lie among all training rows, and how it sums with the other shards.
//
// The growth algorithm is data-parallel over rows. A row-sharded model runs one backend per
// shard (one per GPU, or several on one device or CPU for tests); each holds only its rows of
// X, Y, Q, E (and of Phi_C when stored) and the validation rows it was given. Every quantity
// that is a sum over rows (q^T E, ||E||^2, ||u||^2, Q^T phi, z = Phi_C^T q, n_c, g_c) is summed
// by each shard over its own rows and then passed through RowShards::sum, after which every
// shard continues with the same totals. The candidate statistics, the selection and the small
// host results are therefore identical on every shard.
#pragma once

#include <cstddef>
#include <stdexcept>

#include "data/errors.hpp"

namespace rbf::model {

// Thrown by RowShards::sum in the shards that did not fail, once any shard of the group has
// failed and the group was aborted: the failing shard's own exception is the one to report.
class ShardGroupAborted : public RuntimeError {
 public:
  ShardGroupAborted() : RuntimeError("another shard of the row-sharded backend failed") {}
};

// One shard's view of its group. Created by whoever runs the shards (model/sharded_backend.hpp)
// and handed to the shard's backend before set_training_data.
class RowShards {
 public:
  RowShards(std::size_t index, std::size_t count) : index_(index), count_(count) {
    if (count == 0 || index >= count) throw std::logic_error("row shard index out of range");
  }
  virtual ~RowShards() = default;
  RowShards(const RowShards&) = delete;
  RowShards& operator=(const RowShards&) = delete;

  std::size_t index() const { return index_; }   // this shard's place in the group, 0-based
  std::size_t count() const { return count_; }   // shards in the group
  std::size_t total_rows() const { return total_rows_; }
  // This shard's first training row among all rows; its rows are [first_row, first_row + n).
  std::size_t first_row() const { return first_row_; }
  // Set by the runner before the shard's set_training_data.
  void set_rows(std::size_t first_row, std::size_t total_rows) {
    first_row_ = first_row;
    total_rows_ = total_rows;
  }

  // Replaces `values` (host memory, `count` of them) by their sums over all shards of the
  // group. Every shard calls it at the same point of the same call with the same count. The
  // shards' values are added in shard order, so every shard receives the same bits, on every
  // run. Throws ShardGroupAborted once the group was aborted.
  virtual void sum(double* values, std::size_t count) = 0;
  // Makes every pending and later sum() of the group throw ShardGroupAborted: called by the
  // runner when one shard's call failed, so that the others do not wait for it forever.
  virtual void abort() = 0;

 private:
  std::size_t index_, count_;
  std::size_t first_row_ = 0, total_rows_ = 0;
};

}  // namespace rbf::model
