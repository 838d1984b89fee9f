// The matrix-free scoring pass on tensor cores for wide rows (kMatrixFreeTensorMaxD < d <=
// kMatrixFreeWideMaxD): the register kernel (matrix_free_tensor_core_kernels.cu) keeps each
// warp's candidate operands in registers for the whole pass, which stops at d = 31. Here the
// exponent tile of 128 candidates x 64 rows is a small GEMM over K = 3 (d + 1) split-FP16
// positions (the same operands), walked in chunks of four k-steps staged through shared
// memory with cp.async, three chunks in flight; the exp2, the weighting by v and the sums over
// rows follow in registers once a tile's last chunk is in, as in the register kernel. Each
// chunk's products are summed in a fresh accumulator and then added to the exponent with an
// IEEE add: the MMA's own FP32 accumulation truncates, and over hundreds of k-steps that bias
// grew to 1e-4 of phi at d = 784. The block's candidate operand stays in shared memory for all its rows
// while it fits (d up to ~100): only rows stream then. Wider candidates are streamed chunk by
// chunk beside the rows, from L2: the 128 x 64 tile does 42 flops per byte staged.
#include <cstddef>
#include <cstdint>

#include <cuda_fp16.h>

#include "gpu/kernel_constants.hpp"
#include "gpu/matrix_free_kernels.hpp"
#include "gpu/matrix_free_plan.hpp"
#include "gpu/matrix_free_wide_kernels.hpp"
#include "gpu/tensor_core_operands.cuh"

namespace rbf {
namespace gpu {
namespace {

constexpr int kWideThreads = 128;         // four warps: two along the candidates, two along the rows
constexpr int kWideCandidates = 128;      // per block, 64 per warp
constexpr int kWideRows = kMatrixFreeRows;  // per tile, 32 per warp
constexpr int kWideStages = 3;            // chunks in flight
constexpr int kChunk = kWideChunkHalves;  // halves of one row's chunk: 128 bytes, four k-steps
// Row strides in shared memory, staged chunks and a resident candidate operand alike: an odd
// multiple of 16 bytes, so the eight 16-byte rows each ldmatrix phase reads fall in distinct
// banks.
constexpr int kStagedStride = kChunk + 8;
static_assert(kWideRows == 64 && kChunk == 64, "warp tiles of 64 candidates x 32 rows, chunks of four k16 steps");
static_assert(kMatrixFreeCandidates % kWideCandidates == 0, "blocks tile the padded candidates");
static_assert(kCandidateScaleGroup == 64, "a warp's candidates are one scale group");

__host__ __device__ constexpr int wide_resident_stride(int halves) { return halves + 8; }
// Resident up to this many bytes of candidate operand, so that two blocks share a
// multiprocessor's 228 KiB.
constexpr int kResidentMaxBytes = 96 * 1024;

bool wide_resident(int d) {
  return kWideCandidates * wide_resident_stride(tc_wide_halves(d)) * 2 <= kResidentMaxBytes;
}

int wide_shared_bytes(int d, bool resident) {
  const int a = resident ? kWideCandidates * wide_resident_stride(tc_wide_halves(d))
                         : kWideStages * kWideCandidates * kStagedStride;
  const int b = kWideStages * kWideRows * kStagedStride;
  return (a + b) * 2 + 2 * kWideCandidates * static_cast<int>(sizeof(float));  // + the cross-warp sums
}

#ifdef RBF_MATRIX_FREE_MMA
// The block's whole candidate operand (kWideCandidates x halves, from `src`) into shared
// memory with row stride `stride`, as one cp.async group.
__device__ __forceinline__ void load_resident_candidates(__half* as, int stride, const __half* src, int halves) {
  const int pieces = halves / 8;  // 16-byte pieces per candidate
  for (int e = threadIdx.x; e < kWideCandidates * pieces; e += kWideThreads) {
    const int c = e / pieces, piece = e - c * pieces;
    cp_async16(as + c * stride + piece * 8, src + static_cast<std::size_t>(c) * halves + piece * 8);
  }
  cp_async_commit();
}

// Stages the pass's chunks in order, each call the next one into the next of kWideStages
// buffers: the rows' chunk (kWideRows rows from `rows`, which steps a tile on after its last
// chunk) and, unless kResident, the candidates'. Counted, not divided. Each thread copies the
// same 16-byte piece of every 16th row (and candidate).
template <bool kResident>
struct ChunkStager {
  static constexpr int kPieces = kChunk / 8, kRowsPerPass = kWideThreads / kPieces;
  __half* as;
  __half* bs;
  const __half* rows;
  const __half* candidates;
  int halves, chunks, total;
  int next_q = 0, next_buf = 0, next_j = 0;

  __device__ __forceinline__ void operator()() {
    if (next_q < total) {
      const int piece = threadIdx.x % kPieces, row = threadIdx.x / kPieces;
      const __half* src = rows + static_cast<std::size_t>(row) * halves + next_j * kChunk + piece * 8;
      __half* dst = bs + (next_buf * kWideRows + row) * kStagedStride + piece * 8;
#pragma unroll
      for (int i = 0; i < kWideRows / kRowsPerPass; ++i)
        cp_async16(dst + i * kRowsPerPass * kStagedStride, src + static_cast<std::size_t>(i) * kRowsPerPass * halves);
      if (!kResident) {
        const __half* c_src = candidates + static_cast<std::size_t>(row) * halves + next_j * kChunk + piece * 8;
        __half* c_dst = as + (next_buf * kWideCandidates + row) * kStagedStride + piece * 8;
#pragma unroll
        for (int i = 0; i < kWideCandidates / kRowsPerPass; ++i)
          cp_async16(c_dst + i * kRowsPerPass * kStagedStride,
                     c_src + static_cast<std::size_t>(i) * kRowsPerPass * halves);
      }
    }
    cp_async_commit();  // an empty group past the end keeps the wait counts uniform
    ++next_q;
    next_buf = next_buf + 1 == kWideStages ? 0 : next_buf + 1;
    if (++next_j == chunks) {
      next_j = 0;
      rows += static_cast<std::size_t>(kWideRows) * halves;
    }
  }
};

// One chunk's products added to acc, kSteps of its four k-steps (2 for a last chunk whose
// second half is only padding), each m-tile's through a fresh accumulator and an IEEE add.
// a_base, b_base: this lane's ldmatrix addresses of the chunk's first k-step (candidates with
// stride a_stride, rows with kStagedStride). Two m-tiles at a time: eight independent MMA
// chains per warp hide the MMA latency.
template <int kSteps>
__device__ __forceinline__ void chunk_products(const __half* a_base, int a_stride, const __half* b_base,
                                               float (&acc)[4][4][4]) {
  std::uint32_t b[4][2][4];
#pragma unroll
  for (int nt = 0; nt < 4; ++nt)
#pragma unroll
    for (int pair = 0; pair < kSteps / 2; ++pair)
      ldmatrix_x4(b[nt][pair], b_base + nt * 8 * kStagedStride + 32 * pair);
#pragma unroll
  for (int m2 = 0; m2 < 4; m2 += 2) {
    float part[2][4][4];
#pragma unroll
    for (int step = 0; step < kSteps; ++step) {
      std::uint32_t a[2][4];
      ldmatrix_x4(a[0], a_base + m2 * 16 * a_stride + step * 16);
      ldmatrix_x4(a[1], a_base + (m2 + 1) * 16 * a_stride + step * 16);
      const int pair = step >> 1, first = 2 * (step & 1);
#pragma unroll
      for (int m = 0; m < 2; ++m)
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
          if (step == 0) {
            mma_fp16_zero(part[m][nt], a[m], b[nt][pair][first], b[nt][pair][first + 1]);
          } else {
            mma_fp16(part[m][nt], a[m], b[nt][pair][first], b[nt][pair][first + 1]);
          }
        }
    }
#pragma unroll
    for (int m = 0; m < 2; ++m)
#pragma unroll
      for (int nt = 0; nt < 4; ++nt)
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[m2 + m][nt][i] += part[m][nt][i];
  }
}

// A tile's finished exponents (acc; scaled here unless kUnitScale) into the warp's sums over
// rows: phi v into zacc and, for kSquare, phi^2 over real rows into sacc. row: this lane's
// first row (2 t) of the warp's first 8-row group.
template <bool kSquare, bool kUnitScale>
__device__ __forceinline__ void weight_tile(const MatrixFreePass<float>& p, int row, const float* x_extra,
                                            const float (&c_bias)[4][2], float c_scale, float (&acc)[4][4][4],
                                            float (&zacc)[4][2], float (&sacc)[4][2]) {
#pragma unroll
  for (int nt = 0; nt < 4; ++nt, row += 8) {
    const float2 w = __ldg(reinterpret_cast<const float2*>(p.v + row));
    const float2 r = kUnitScale ? make_float2(1.0f, 1.0f) : __ldg(reinterpret_cast<const float2*>(x_extra + row));
    const float scale0 = r.x * c_scale, scale1 = r.y * c_scale;
    float m0 = !kSquare || row < p.rows ? 1.0f : 0.0f;
    float m1 = !kSquare || row + 1 < p.rows ? 1.0f : 0.0f;
    if (kSquare && p.square_weight != nullptr) {  // weighted rows (0 in padding)
      m0 = __ldg(p.square_weight + row);
      m1 = __ldg(p.square_weight + row + 1);
    }
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)
      weigh_exponents<kSquare, kUnitScale>(acc[mt][nt], c_bias[mt], scale0, scale1, w, m0, m1, zacc[mt], sacc[mt]);
  }
}

// The block's sums into the pass's outputs: the four lanes of a group hold the same candidates
// over different rows; the two row warps of a candidate warp are added in shared memory
// (`cross`, 2 x kWideCandidates floats), in a fixed order.
template <bool kSquare>
__device__ __forceinline__ void write_block_sums(const MatrixFreePass<float>& p, int block_cand0, int wc, int wr,
                                                 float (&zacc)[4][2], float (&sacc)[4][2], float* cross) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      sum_group_lanes<kSquare>(zacc[mt][h], sacc[mt][h]);
      const int local = wc * 64 + mt * 16 + g + 8 * h;
      if (wr == 1 && t == 0) {
        cross[local] = zacc[mt][h];
        cross[kWideCandidates + local] = sacc[mt][h];
      }
    }
  }
  __syncthreads();
  if (wr != 0 || t != 0) return;
#pragma unroll
  for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int local = wc * 64 + mt * 16 + g + 8 * h, c = block_cand0 + local;
      if (c < p.count) {
        p.out[static_cast<std::size_t>(blockIdx.y) * p.count + c] = zacc[mt][h] + cross[local];
        if (kSquare)
          p.out_square[static_cast<std::size_t>(blockIdx.y) * p.count + c] = sacc[mt][h] + cross[kWideCandidates + local];
      }
    }
  }
}
#endif

// Fragments come from shared memory through ldmatrix, so k runs in storage order in both
// operands (the operands' K positions are a sum index: any order works as long as both sides
// agree): k-step s of a chunk is its halves 16 s .. 16 s + 15.
// kResident: the block's candidate operand is loaded once, whole; else chunk by chunk.
// kSquare, kUnitScale: as in the register kernel.
template <bool kResident, bool kSquare, bool kUnitScale>
__global__ void __launch_bounds__(kWideThreads, 2) matrix_free_wide_kernel(MatrixFreePass<float> p) {
#ifdef RBF_MATRIX_FREE_MMA
  extern __shared__ __align__(16) unsigned char shared[];
  const int halves = tc_wide_halves(p.d);
  const int chunks = halves / kChunk;
  // The split positions need only the first half of the last chunk: skip the MMAs of the rest.
  const bool short_last = (3 * (p.d + 1) + 31) / 32 * 32 < halves;
  const int a_stride = kResident ? wide_resident_stride(halves) : kStagedStride;
  __half* as = reinterpret_cast<__half*>(shared);
  __half* bs = as + (kResident ? kWideCandidates * a_stride : kWideStages * kWideCandidates * kStagedStride);
  float* cross = reinterpret_cast<float*>(bs + kWideStages * kWideRows * kStagedStride);

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int wc = warp & 1, wr = warp >> 1;  // the warp's candidates (of 2) and rows (of 2)
  const int block_cand0 = blockIdx.x * kWideCandidates;
  const int cand0 = block_cand0 + wc * 64;
  const std::size_t padded_count =
      static_cast<std::size_t>((p.count + kMatrixFreeCandidates - 1) / kMatrixFreeCandidates) * kMatrixFreeCandidates;
  const __half* c_halves = reinterpret_cast<const __half*>(p.c_aug);
  const float2* c_extra = reinterpret_cast<const float2*>(p.c_aug + padded_count * (halves / 2));
  const __half* x_halves = reinterpret_cast<const __half*>(p.x_aug);
  const float* x_extra = p.x_aug + static_cast<std::size_t>(p.padded_rows) * (halves / 2);

  const float c_scale = kUnitScale ? 1.0f : c_extra[cand0].x;  // one scale group per warp
  float c_bias[4][2];
#pragma unroll
  for (int mt = 0; mt < 4; ++mt) {
    c_bias[mt][0] = c_extra[cand0 + mt * 16 + g].y;
    c_bias[mt][1] = c_extra[cand0 + mt * 16 + g + 8].y;
  }

  const int r_begin = blockIdx.y * p.rows_per_split;
  const int r_end = min(p.padded_rows, r_begin + p.rows_per_split);
  const int tiles = max(0, r_end - r_begin) / kWideRows;
  const int total = tiles * chunks;  // every tile's chunks, in order: one pipeline across tiles

  const __half* block_candidates = c_halves + static_cast<std::size_t>(block_cand0) * halves;
  if (kResident) load_resident_candidates(as, a_stride, block_candidates, halves);
  ChunkStager<kResident> stage{as, bs, x_halves + static_cast<std::size_t>(r_begin) * halves,
                               block_candidates, halves, chunks, total};

  float zacc[4][2], sacc[4][2];
#pragma unroll
  for (int mt = 0; mt < 4; ++mt) zacc[mt][0] = zacc[mt][1] = sacc[mt][0] = sacc[mt][1] = 0.0f;

#pragma unroll
  for (int q = 0; q < kWideStages - 1; ++q) stage();
  float acc[4][4][4];
  int buf = 0;
  for (int tile = 0; tile < tiles; ++tile) {
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
      for (int nt = 0; nt < 4; ++nt) {
        // Unit scale: the exponent starts at the candidates' constant terms.
        acc[mt][nt][0] = acc[mt][nt][1] = kUnitScale ? c_bias[mt][0] : 0.0f;
        acc[mt][nt][2] = acc[mt][nt][3] = kUnitScale ? c_bias[mt][1] : 0.0f;
      }
#pragma unroll 1
    for (int j = 0; j < chunks; ++j) {
      cp_async_wait<kWideStages - 2>();  // this chunk is in (and the resident operand, committed first)
      __syncthreads();
      stage();  // into the buffer the previous chunk used: every warp has passed the barrier
      // Lane l addresses row l % 16 (A) or l % 8 (B) of its matrix, 8 halves along k per
      // matrix: A's four matrices are one k-step of a 16-candidate tile, B's two k-steps of an
      // 8-row tile.
      const __half* a_base = (kResident ? as + j * kChunk : as + buf * kWideCandidates * kStagedStride) +
                             (wc * 64 + (lane & 15)) * a_stride + (lane >> 4) * 8;
      const __half* b_base = bs + (buf * kWideRows + wr * 32 + (lane & 7)) * kStagedStride + (lane >> 3) * 8;
      if (short_last && j == chunks - 1) {
        chunk_products<2>(a_base, a_stride, b_base, acc);
      } else {
        chunk_products<4>(a_base, a_stride, b_base, acc);
      }
      buf = buf + 1 == kWideStages ? 0 : buf + 1;
    }
    // The tile's exponents are complete: weight them into the sums over rows.
    weight_tile<kSquare, kUnitScale>(p, r_begin + tile * kWideRows + wr * 32 + 2 * t, x_extra, c_bias, c_scale, acc,
                                     zacc, sacc);
  }
  cp_async_wait<0>();

  write_block_sums<kSquare>(p, block_cand0, wc, wr, zacc, sacc, cross);
#else
  (void)p;  // never launched: plan_matrix_free checks the compiled architecture
#endif
}

template <bool kResident, bool kSquare, bool kUnitScale>
const void* wide_kernel() {
  return reinterpret_cast<const void*>(&matrix_free_wide_kernel<kResident, kSquare, kUnitScale>);
}

template <bool kResident>
const void* wide_kernel_for(bool square, bool unit_scale) {
  if (unit_scale) return square ? wide_kernel<kResident, true, true>() : wide_kernel<kResident, false, true>();
  return square ? wide_kernel<kResident, true, false>() : wide_kernel<kResident, false, false>();
}

const void* wide_kernel_for(int d, bool square, bool unit_scale) {
  return wide_resident(d) ? wide_kernel_for<true>(square, unit_scale) : wide_kernel_for<false>(square, unit_scale);
}

}  // namespace

MatrixFreeKernelShape matrix_free_wide_shape(int d) {
  MatrixFreeKernelShape shape;
  shape.kernel = wide_kernel_for(d, false, true);
  shape.threads = kWideThreads;
  shape.candidates = kWideCandidates;
  shape.row_floats = tc_wide_halves(d) / 2 + kRowExtraFloats;
  shape.candidate_floats = tc_wide_halves(d) / 2 + kCandidateExtraFloats;
  shape.shared_bytes = wide_shared_bytes(d, wide_resident(d));
  // Beyond 48 KiB a kernel must ask for its shared memory before an occupancy query or a launch.
  (void)cudaFuncSetAttribute(shape.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shape.shared_bytes);
  return shape;
}

cudaError_t launch_wide_tensor_core_pass(const MatrixFreePass<float>& pass, const MatrixFreePlan& plan,
                                         cudaStream_t stream) {
  if (pass.d <= kMatrixFreeTensorMaxD || pass.d > kMatrixFreeWideMaxD) return cudaErrorInvalidValue;
  const void* kernel = wide_kernel_for(pass.d, pass.out_square != nullptr, plan.unit_scale);
  const int shared_bytes = wide_shared_bytes(pass.d, wide_resident(pass.d));
  const cudaError_t attribute =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
  if (attribute != cudaSuccess) return attribute;
  const dim3 grid(blocks_for(static_cast<std::size_t>(pass.count), kWideCandidates), pass.splits);
  void* args[] = {const_cast<MatrixFreePass<float>*>(&pass)};
  return cudaLaunchKernel(kernel, grid, dim3(kWideThreads), args, static_cast<std::size_t>(shared_bytes), stream);
}

}  // namespace gpu
}  // namespace rbf
