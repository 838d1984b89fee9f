// What the kernel files and the host code that launches them share: the slots of the call
// results, the row padding, the grid's limits and the scratch of the deterministic reductions.
// C++14 without any CUDA header, so both nvcc (the .cu files) and the host compiler include it.
#pragma once

#include <cstddef>

namespace rbf {
namespace gpu {

// Slots of the small double array that each call copies back to the host in one transfer.
enum ResultSlot : int {
  kResidualNorm2 = 0,  // ||E||_F^2 after the residual update
  kSelectedScore = 1,  // selection score, -1 when nothing is admissible
  kSelectedIndex = 2,  // selected candidate, -1 when nothing is admissible
  kNormU = 3,          // ||u|| after CGS2
  kNormPhi = 4,        // ||phi|| of the added candidate
  kDependent = 5,      // 1 when ||u|| <= tol * ||phi||
  kReorthogonalize = 6,  // 1 when CGS's first projection asks for a second one (DGKS)
  kNormPhi2 = 7,       // ||phi||^2, as the first CGS pass summed it
  kNormU2 = 8,         // ||u||^2, as the last CGS pass to run summed it (a shard's own rows)
  kValidationSse = 9,      // validation sums: the weighted squared error
  kValidationCorrect = 10,  // ... and the rows whose class is predicted right
  kResultA = 11,       // a = q^T E (k values), then CGS2's h (nodes + 1 values)
};

// Rows are padded with zeros to a multiple of this, so every column starts 16-byte aligned
// and the vector loads of the scoring pass need no tail code.
constexpr std::size_t kRowPadding = 64;

// The largest grid y dimension CUDA allows: launches with more column blocks loop or clamp.
constexpr int kMaxGridY = 65535;
// Blocks of per_block threads (or items) that cover n.
inline int blocks_for(std::size_t n, int per_block) { return static_cast<int>((n + per_block - 1) / per_block); }

// Blocks of the row-wise reductions (fixed, so results do not depend on the device).
constexpr int kReduceBlocks = 512;

// Scratch for deterministic two-level reductions: each block writes its value, the last
// block to finish (counted by a ticket) combines them in a fixed order.
struct ReduceScratch {
  double* values;         // (2 + k) * max(kReduceBlocks, cgs_blocks(padded rows), candidates / 32 + 1)
  long long* indices;     // same count
  unsigned int* tickets;  // kTicketCount counters, zero between launches
};
// Tickets by kernel: 0 the statistics update, 1 the residual update (and the pending column's
// settling), 2 CGS's last pass, 3 its first pass, 4 the validation sums, 5 lazy CGS2's close.
constexpr int kTicketCount = 6;

}  // namespace gpu
}  // namespace rbf
